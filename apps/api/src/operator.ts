import { chmodSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { resolve } from 'node:path'
import { issueOperatorToken, type PrincipalUser, type Scope } from '@quire/core'
import Fastify, { type FastifyInstance } from 'fastify'
import { createRuntime, type Runtime } from './container.ts'
import type { Env } from './env.ts'

export interface TokenRequest {
  readonly email: string
  readonly scopes?: readonly Scope[]
  readonly name?: string
}

export interface IssuedToken {
  readonly secret: string
  readonly keyId: string
  readonly user: PrincipalUser
  readonly userCreated: boolean
}

/** Where a server on the embedded database takes operator commands: a socket only its OS user can open. */
export function operatorSocketPath(env: Env): string {
  return resolve(env.QUIRE_DATA_DIR, 'operator.sock')
}

/**
 * The embedded database belongs to one process. While the server runs, operator commands go to
 * it through a Unix socket in the data directory (mode 0600: file permissions are the credential).
 */
export async function startOperatorSocket(runtime: Runtime, path: string): Promise<FastifyInstance> {
  rmSync(path, { force: true })
  const app = Fastify({ logger: false })
  app.post<{ Body: TokenRequest }>('/token', async (req) => issueOperatorToken(runtime.operator, req.body))
  await app.listen({ path })
  chmodSync(path, 0o600)
  return app
}

function viaSocket(path: string, body: TokenRequest): Promise<IssuedToken | null> {
  return new Promise((done, fail) => {
    const req = request({ socketPath: path, path: '/token', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () =>
        res.statusCode === 200 ? done(JSON.parse(text) as IssuedToken) : fail(new Error(`The running server refused: ${text}`)),
      )
    })
    // No server behind the socket (or no socket): open the database directly instead.
    req.on('error', () => done(null))
    req.end(JSON.stringify(body))
  })
}

/** Mints an API key: through the running server when it owns the embedded database, else directly. */
export async function issueToken(env: Env, input: TokenRequest): Promise<IssuedToken> {
  if (!env.DATABASE_URL) {
    const issued = await viaSocket(operatorSocketPath(env), input)
    if (issued) return issued
  }
  const runtime = await createRuntime(env)
  try {
    return await issueOperatorToken(runtime.operator, input)
  } finally {
    await runtime.close()
  }
}
