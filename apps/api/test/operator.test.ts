import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testDatabase } from '../../../tooling/vitest/test-database.ts'
import { buildApp } from '../src/app.ts'
import { createRuntime, type Runtime } from '../src/container.ts'
import { readEnv } from '../src/env.ts'
import { operatorSocketPath, startOperatorSocket } from '../src/operator.ts'
import { engine } from './helper.ts'

const run = promisify(execFile)
const adminScript = resolve(import.meta.dirname, '../src/admin.ts')

/** `pnpm admin token …` as an operator runs it: a separate process; stdout must be the secret alone. */
async function admin(env: Record<string, string>, ...args: string[]) {
  const { stdout, stderr } = await run(process.execPath, ['--conditions=source', adminScript, 'token', ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
  })
  return { stdout, stderr }
}

describe(`the operator command (${engine})`, () => {
  let runtime: Runtime
  let env: Record<string, string>
  let dir = ''
  let close = async () => {}

  beforeAll(async () => {
    if (engine === 'postgres') {
      const database = await testDatabase()
      env = { DATABASE_URL: database.url ?? '' }
      runtime = await createRuntime(readEnv(env), { database })
      close = () => runtime.close()
    } else {
      // A server on its own embedded database, taking operator commands on its socket.
      dir = mkdtempSync(join(tmpdir(), 'quire-operator-'))
      env = { QUIRE_DATA_DIR: dir }
      runtime = await createRuntime(readEnv(env))
      const socket = await startOperatorSocket(runtime, operatorSocketPath(readEnv(env)))
      close = async () => {
        await socket.close()
        await runtime.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }, 120_000)
  afterAll(() => close())

  it('creates the user and prints only a working secret', async () => {
    const { stdout, stderr } = await admin(
      env,
      '--email',
      'Operator.Person+ops@Example.com',
      '--scopes',
      'artifacts:read,artifacts:create',
      '--name',
      'first',
    )
    expect(stdout).toMatch(/^qk_[A-Za-z0-9_-]{43}\n$/)
    expect(stderr).toContain('Created user operator.person+ops@example.com (username operator-person)')
    const app = await buildApp(runtime)
    const res = await app.inject({ url: '/api/profile/projects', headers: { authorization: `Bearer ${stdout.trim()}` } })
    expect(res.statusCode).toBe(200)
    const key = await runtime.database.db
      .selectFrom('credentials')
      .select(['name', 'scopes'])
      .where('name', '=', 'first')
      .executeTakeFirstOrThrow()
    expect(key.scopes).toEqual(['artifacts:read', 'artifacts:create'])
    const events = await runtime.database.db
      .selectFrom('audit_events')
      .select(['action', 'via_surface'])
      .where('actor_kind', '=', 'operator')
      .execute()
    expect(events).toEqual(
      expect.arrayContaining([
        { action: 'user.created', via_surface: 'operator' },
        { action: 'api_key.created', via_surface: 'operator' },
      ]),
    )
  })

  it('reuses the user on a second run and refuses an unknown scope', async () => {
    const { stderr } = await admin(env, '--email', 'operator.person+ops@example.com')
    expect(stderr).toContain('Found user')
    await expect(admin(env, '--email', 'x@example.com', '--scopes', 'root')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown scope root'),
    })
  })
})
