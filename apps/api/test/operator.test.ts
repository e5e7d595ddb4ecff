import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildApp } from '@quire/rest'
import { createRuntime, operatorSocketPath, type Runtime, readEnv, startOperatorSocket } from '@quire/runtime'
import { finish, spawnTracked } from '@quire/testing/processes'
import { testDatabase } from '@quire/testing/test-database'
import { timeoutFor } from '@quire/testing/waits'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine } from './helper.ts'

const adminScript = resolve(import.meta.dirname, '../src/admin.ts')

/**
 * `pnpm admin …` as an operator runs it: a separate process (stdout of `token` must be the secret
 * alone), run to its end (one wait: packages/testing/src/waits.ts). A failure carries its exit code and stderr.
 */
async function admin(env: Record<string, string>, ...args: string[]) {
  const child = spawnTracked(process.execPath, ['--conditions=source', adminScript, ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const { code, stdout, stderr } = await finish(child)
  if (code !== 0) throw Object.assign(new Error(`admin ${args.join(' ')} exited ${code}: ${stderr}`), { code, stderr })
  return { stdout, stderr }
}

// A test here runs the command at most three times, each one wait.
describe(`the operator command (${engine})`, { timeout: timeoutFor(3) }, () => {
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

  /** An audit event written 30 days ago (the command runs on the system clock). */
  const oldEvent = (workspaceId: string | null) => ({
    id: runtime.deps.ids.next('evt'),
    at: new Date(Date.now() - 30 * 86_400_000),
    action: 'project.created',
    actor_kind: 'operator',
    actor_id: 'operator',
    actor_label: 'operator',
    via_surface: 'operator',
    via_credential: null,
    via_credential_id: null,
    workspace_id: workspaceId,
    artifact_id: null,
    data: JSON.stringify({ test: 'old' }),
  })

  it('creates the user and prints only a working secret', async () => {
    const { stdout, stderr } = await admin(
      env,
      'token',
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
    const { stderr } = await admin(env, 'token', '--email', 'operator.person+ops@example.com')
    expect(stderr).toContain('Found user')
    await expect(admin(env, 'token', '--email', 'x@example.com', '--scopes', 'root')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown scope root'),
    })
  })

  it('sets a workspace plan, with its audit event, and refuses an unknown workspace or plan', async () => {
    const { stderr } = await admin(env, 'plan', '--workspace', 'operator-person', '--plan', 'pro')
    expect(stderr).toMatch(/^Workspace operator-person \(ws_\S+\) is on the pro plan\.\n$/)
    const workspace = await runtime.database.db
      .selectFrom('workspaces')
      .select(['id', 'plan'])
      .where('slug', '=', 'operator-person')
      .executeTakeFirstOrThrow()
    expect(workspace.plan).toBe('pro')
    const event = await runtime.database.db
      .selectFrom('audit_events')
      .select(['actor_kind', 'via_surface', 'data'])
      .where('action', '=', 'workspace.plan_changed')
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow()
    expect(event).toMatchObject({ actor_kind: 'operator', via_surface: 'operator', data: { from: 'free', to: 'pro' } })

    await expect(admin(env, 'plan', '--workspace', 'nobody-here', '--plan', 'team')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('No workspace nobody-here'),
    })
    await expect(admin(env, 'plan', '--workspace', 'operator-person', '--plan', 'gold')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown plan gold. Plans: free, pro, team.'),
    })
    const after = await runtime.database.db.selectFrom('workspaces').select('plan').where('id', '=', workspace.id).executeTakeFirstOrThrow()
    expect(after.plan).toBe('pro')
  })

  it("prunes the audit events past their workspace plan's retention", async () => {
    const { stderr: created } = await admin(env, 'token', '--email', 'short.memory@example.com')
    expect(created).toContain('(username short-memory)')
    const ids = async (slug: string) =>
      (await runtime.database.db.selectFrom('workspaces').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id
    const free = await ids('short-memory')
    const pro = await ids('operator-person') // on pro since the test above
    await runtime.database.db
      .insertInto('audit_events')
      .values([oldEvent(free), oldEvent(null), oldEvent(pro)])
      .execute()

    const { stderr } = await admin(env, 'prune-audit')
    expect(stderr).toBe('Pruned 2 audit events.\n')
    const left = await runtime.database.db
      .selectFrom('audit_events')
      .select(['workspace_id'])
      .where('at', '<', new Date(Date.now() - 86_400_000))
      .execute()
    expect(left).toEqual([{ workspace_id: pro }])
    // This month's events of the free workspace stay.
    const recent = await runtime.database.db.selectFrom('audit_events').select('action').where('workspace_id', '=', free).execute()
    expect(recent.map((e) => e.action).sort()).toEqual(['api_key.created', 'user.created'])

    expect((await admin(env, 'prune-audit')).stderr).toBe('Pruned 0 audit events.\n')
  })

  // The advisory lock's key is fixed (storage's AUDIT_PRUNING_LOCK_KEY: "QUIREAUD"), so every
  // process on one database agrees on it. PGlite serves one process: there is no other to wait for.
  it.runIf(engine === 'postgres')('says so and deletes nothing while another process is pruning', async () => {
    const old = oldEvent(null)
    await runtime.database.db.insertInto('audit_events').values(old).execute()
    await runtime.database.db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(5860671107790624068)`.execute(conn)
      try {
        const { stderr } = await admin(env, 'prune-audit')
        expect(stderr).toBe('Another run is pruning the audit trail right now (the server, or another process); nothing done.\n')
      } finally {
        await sql`SELECT pg_advisory_unlock(5860671107790624068)`.execute(conn)
      }
    })
    expect(await runtime.database.db.selectFrom('audit_events').select('id').where('id', '=', old.id).execute()).toHaveLength(1)
  })
})
