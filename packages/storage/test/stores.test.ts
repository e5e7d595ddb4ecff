import { type AuditEventDraft, type CoreDeps, createArtifact, createIdGenerator, createProject, defaultLimits, issueOperatorToken, type Policy, sha256Hex, systemClock } from '@quire/core'
import { createPolicy } from '@quire/authz'
import { type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testDatabase, testEngine } from '../../../tooling/vitest/test-database.ts'
import { createStores, type DatabaseHandle } from '../src/index.ts'

let handle: DatabaseHandle
let deps: CoreDeps & ReturnType<typeof createStores>
const policy: Policy = createPolicy()
const ids = createIdGenerator()

/** Counts the statements a piece of code sends. */
function countingStores() {
  let queries = 0
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      queries++
      return args.node
    },
    transformResult: async (args) => args.result,
  }
  return { stores: createStores(handle.db.withPlugin(plugin)), queries: () => queries }
}

async function seed() {
  const email = `u${Math.random().toString(36).slice(2, 8)}@example.com`
  const token = await issueOperatorToken({ clock: systemClock, ids, accounts: deps.accounts, apiKeys: deps.apiKeys }, { email })
  const caller = { credential: { secretHash: await sha256Hex(token.secret) }, surface: 'api' as const }
  const project = await createProject(deps, caller, { ownerUsername: token.user.username, slug: 'p', title: 'P', icon: 'p' })
  if (!project.ok) throw new Error(project.error.message)
  const artifact = await createArtifact(deps, caller, {
    ownerUsername: token.user.username,
    projectSlug: 'p',
    slug: 'a',
    type: 'md',
    title: 'A',
    content: `content of ${email}\n`,
    changelog: '',
    access: { publicView: false, publicEdit: false },
  })
  if (!artifact.ok) throw new Error(artifact.error.message)
  return { caller, user: token.user, artifactId: artifact.value.value.id }
}

function audit(id: string, artifactId: string): AuditEventDraft {
  return {
    id,
    at: new Date(),
    action: 'artifact.version_created',
    actor: { kind: 'operator', id: 'operator', label: 'operator' },
    via: { surface: 'operator', credential: null, credentialId: null },
    workspaceId: null,
    artifactId,
    data: {},
  }
}

beforeAll(async () => {
  handle = await testDatabase()
  deps = { ...createStores(handle.db), policy, clock: systemClock, ids, config: { webUrl: 'https://q.test', limits: defaultLimits, version: '0' } }
})
afterAll(async () => {
  await handle.close()
})

describe(`storage (${testEngine})`, () => {
  it('loads credential, artifact, role and head content in one round trip', async () => {
    const { caller, artifactId, user } = await seed()
    const { stores, queries } = countingStores()
    const ctx = await stores.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId }, version: 'latest', withContent: true })
    expect(queries()).toBe(1)
    expect(ctx.credential?.user).toMatchObject({ id: user.id })
    expect(ctx.role).toBe('owner')
    expect(ctx.artifact?.id).toBe(artifactId)
    expect(ctx.version).toMatchObject({ number: 1, body: `content of ${user.email}\n` })
  })

  it('still returns the credential when the artifact does not exist (so a bad token is a 401, not a 404)', async () => {
    const { caller } = await seed()
    const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: 'art_missing' } })
    expect(ctx.artifact).toBeNull()
    expect(ctx.credential).not.toBeNull()
  })

  it('writes a version and its audit event in one statement, or neither', async () => {
    const { artifactId } = await seed()
    const taken = ids.next('evt')
    await sql`INSERT INTO audit_events (id, at, action, actor_kind, actor_id, actor_label, via_surface) VALUES (${taken}, now(), 'x', 'operator', 'o', 'o', 'operator')`.execute(handle.db)
    const version = { artifactId, number: 2, sha256: await sha256Hex('never stored'), size: 12, changelog: '', restoredFrom: null, createdAt: new Date(), createdBy: { kind: 'operator' as const, id: 'o', label: 'o' } }
    // The audit insert collides with an existing event id: the whole append must roll back.
    await expect(
      deps.artifacts.append({ artifactId, expectedLatestVersion: 1, version, content: 'never stored', audit: audit(taken, artifactId), idempotency: null }),
    ).rejects.toThrow()
    const head = await handle.db.selectFrom('artifacts').select('latest_version').where('id', '=', artifactId).executeTakeFirstOrThrow()
    expect(head.latest_version).toBe(1)
    const versions = await handle.db.selectFrom('versions').select('number').where('artifact_id', '=', artifactId).execute()
    expect(versions).toHaveLength(1)
    const content = await handle.db.selectFrom('contents').select('sha256').where('sha256', '=', version.sha256).execute()
    expect(content).toHaveLength(0)
    // The same append with a fresh event id goes through, with exactly one event.
    const outcome = await deps.artifacts.append({ artifactId, expectedLatestVersion: 1, version, content: 'never stored', audit: audit(ids.next('evt'), artifactId), idempotency: null })
    expect(outcome).toEqual({ ok: true })
  })

  it('answers a stale head with the current head and writes nothing', async () => {
    const { artifactId } = await seed()
    const version = { artifactId, number: 6, sha256: await sha256Hex('stale'), size: 5, changelog: '', restoredFrom: null, createdAt: new Date(), createdBy: { kind: 'operator' as const, id: 'o', label: 'o' } }
    const outcome = await deps.artifacts.append({ artifactId, expectedLatestVersion: 5, version, content: 'stale', audit: audit(ids.next('evt'), artifactId), idempotency: null })
    expect(outcome).toEqual({ ok: false, reason: 'conflict', latestVersion: 1 })
    const events = await handle.db.selectFrom('audit_events').select('id').where('artifact_id', '=', artifactId).execute()
    expect(events).toHaveLength(1)
  })

  it('reads the head by key: as fast with 10,000 versions as with one', async () => {
    const { caller, artifactId } = await seed()
    const small = await seed()
    // 10,000 versions written directly (the API path is exercised elsewhere).
    await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, created_at, created_by_kind, created_by_id, created_by_label)
      SELECT ${artifactId}, n, v.content_sha256, v.size, '', now(), 'operator', 'o', 'o'
      FROM generate_series(2, 10000) AS n, (SELECT content_sha256, size FROM versions WHERE artifact_id = ${artifactId} AND number = 1) AS v`.execute(handle.db)
    await sql`UPDATE artifacts SET latest_version = 10000 WHERE id = ${artifactId}`.execute(handle.db)
    await sql`ANALYZE versions`.execute(handle.db)

    const time = async (id: string, cred: typeof caller.credential) => {
      const samples: number[] = []
      for (let i = 0; i < 60; i++) {
        const t = performance.now()
        const ctx = await deps.artifacts.loadForCaller({ credential: cred, target: { id }, version: 'latest', withContent: true })
        samples.push(performance.now() - t)
        expect(ctx.version).not.toBeNull()
      }
      return samples.sort((a, b) => a - b)[30] ?? 0
    }
    await time(small.artifactId, small.caller.credential)
    const few = await time(small.artifactId, small.caller.credential)
    const many = await time(artifactId, caller.credential)
    const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId }, version: 'latest', withContent: true })
    expect(ctx.version?.number).toBe(10000)
    // Medians; generous slack for a noisy two-core machine. A scan would be ~10-100× slower.
    expect(many).toBeLessThan(few * 2 + 1)
  })
})
