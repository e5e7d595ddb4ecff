import { chmodSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { resolve } from 'node:path'
import {
  issueOperatorToken,
  type OperatorDeps,
  type Plan,
  type PrincipalUser,
  pruneAuditEvents,
  type Scope,
  setWorkspacePlan,
  type WorkspacePlanRecord,
} from '@quire/core'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Env } from './config.ts'
import { createRuntime, type Runtime } from './container.ts'

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

export interface PlanRequest {
  readonly slug: string
  readonly plan: Plan
}

/**
 * What the operator can do, by name: the same functions run directly on the database or, on the
 * embedded one while the server owns it, behind the operator socket (one route each).
 */
const commands = {
  token: (operator: OperatorDeps, input: TokenRequest): Promise<IssuedToken> => issueOperatorToken(operator, input),
  // Wrapped: "no such workspace" (null) must survive the trip through the socket as JSON.
  plan: async (operator: OperatorDeps, input: PlanRequest): Promise<{ workspace: WorkspacePlanRecord | null }> => ({
    workspace: await setWorkspacePlan(operator, input),
  }),
  'prune-audit': (operator: OperatorDeps, _input: Record<string, never>): Promise<{ pruned: number; skipped: boolean }> =>
    pruneAuditEvents(operator),
}
type Command = keyof typeof commands
type InputOf<C extends Command> = Parameters<(typeof commands)[C]>[1]
type OutputOf<C extends Command> = Awaited<ReturnType<(typeof commands)[C]>>
type AnyCommand = (operator: OperatorDeps, input: unknown) => Promise<unknown>

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
  for (const [name, command] of Object.entries(commands) as [Command, AnyCommand][]) {
    app.post(`/${name}`, async (req) => command(runtime.operator, req.body ?? {}))
  }
  await app.listen({ path })
  chmodSync(path, 0o600)
  return app
}

/** One command through the socket; null when no server is behind it (or there is no socket). */
function viaSocket<T>(path: string, command: Command, input: unknown): Promise<T | null> {
  return new Promise((done, fail) => {
    const req = request(
      { socketPath: path, path: `/${command}`, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => (res.statusCode === 200 ? done(JSON.parse(text) as T) : fail(new Error(`The running server refused: ${text}`))))
      },
    )
    // No server behind the socket (or no socket): open the database directly instead.
    req.on('error', () => done(null))
    req.end(JSON.stringify(input))
  })
}

/** Runs an operator command: through the running server when it owns the embedded database, else directly. */
export async function runOperatorCommand<C extends Command>(env: Env, command: C, input: InputOf<C>): Promise<OutputOf<C>> {
  if (!env.DATABASE_URL) {
    const answer = await viaSocket<OutputOf<C>>(operatorSocketPath(env), command, input)
    if (answer) return answer
  }
  const runtime = await createRuntime(env)
  try {
    return (await (commands[command] as AnyCommand)(runtime.operator, input)) as OutputOf<C>
  } finally {
    await runtime.close()
  }
}
