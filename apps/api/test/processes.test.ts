import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issueOperatorToken } from '@quire/core'
import { createRuntime, readEnv } from '@quire/runtime'
import { type Database, openDatabase } from '@quire/storage'
import { testDatabase } from '@quire/testing/test-database'
import { tail, timeoutFor, waitBudgetMs } from '@quire/testing/waits'
import { type Kysely, sql } from 'kysely'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { engine } from './helper.ts'
import { killAllApiProcesses, startApiProcess } from './process-helper.ts'

/**
 * "Nothing lost", across real processes: API servers started as an operator starts them, real
 * HTTP, a shared database, and a SIGKILL in the middle of a stream of appends. What a client was
 * told (201 with version N) must be what the database holds, exactly once, with its audit event.
 */

// Whatever an assertion did, no server outlives its test.
afterEach(() => killAllApiProcesses())

type Db = Kysely<Database>

interface Reply {
  readonly status: number
  readonly body: Record<string, unknown>
}

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(waitBudgetMs),
  })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
}

/** A project and `count` artifacts (version 1 each), over HTTP. */
async function seedArtifacts(base: string, token: string, username: string, count: number): Promise<string[]> {
  const project = await call(base, token, 'POST', '/api/projects', { ownerUsername: username, slug: 'load', title: 'Load', icon: '📝' })
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`)
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const created = await call(base, token, 'POST', '/api/artifacts', {
      ownerUsername: username,
      projectSlug: 'load',
      slug: `doc-${i}`,
      type: 'md',
      title: `Doc ${i}`,
      content: `# Doc ${i} ${randomUUID()}\n`,
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    if (created.status !== 201) throw new Error(`artifact: ${created.status} ${JSON.stringify(created.body)}`)
    ids.push(created.body.id as string)
  }
  return ids
}

/** An append the server acknowledged: 201 with this version number for this content. */
interface Ack {
  readonly server: string
  readonly artifactId: string
  readonly version: number
  readonly content: string
}

/** A request that got no answer (the server died under it): it may or may not have committed. */
interface Unanswered {
  readonly server: string
  readonly artifactId: string
  readonly expected: number
  readonly content: string
  readonly error: string
}

interface Stream {
  /** No client sends another request; those in flight finish. */
  halt(): void
  /** Requests sent and not yet answered, now. */
  inFlight(): number
  readonly done: Promise<{
    readonly acks: readonly Ack[]
    readonly conflicts: ReadonlyMap<string, number>
    readonly unanswered: readonly Unanswered[]
    readonly unexpected: readonly string[]
    readonly ms: number
  }>
}

/**
 * Concurrent writers: `clientsPerServer` clients per server, each appending unique content to the
 * artifacts in turn and, on 409, taking the head from the problem body and retrying the same
 * content until it lands. Ends after `until.acks` acknowledged appends, `until.ms`, or `halt()`.
 * A client whose request gets no answer stops (its outcome is unknown).
 */
function appendStream(options: {
  servers: readonly { readonly name: string; readonly url: string }[]
  clientsPerServer: number
  token: string
  artifactIds: readonly string[]
  until: { acks: number; ms: number }
  onAck?: (total: number) => void
}): Stream {
  const acks: Ack[] = []
  const conflicts = new Map(options.servers.map((s) => [s.name, 0]))
  const unanswered: Unanswered[] = []
  const unexpected: string[] = []
  const started = Date.now()
  const deadline = started + options.until.ms
  let halted = false
  let inFlight = 0
  const going = () => !halted && unexpected.length === 0 && acks.length < options.until.acks && Date.now() < deadline

  async function client(server: { name: string; url: string }, index: number) {
    const heads = new Map(options.artifactIds.map((id) => [id, 1]))
    for (let n = 0; going(); n++) {
      const artifactId = options.artifactIds[(index + n) % options.artifactIds.length] as string
      const content = `${server.name} client ${index} append ${n} ${randomUUID()}\n`
      while (going()) {
        const expected = heads.get(artifactId) ?? 1
        let reply: Reply
        inFlight++
        try {
          reply = await call(server.url, options.token, 'POST', `/api/artifacts/${artifactId}/versions`, {
            content,
            changelog: `client ${index}`,
            expectedLatestVersion: expected,
          })
        } catch (error) {
          unanswered.push({ server: server.name, artifactId, expected, content, error: String((error as Error).cause ?? error) })
          return
        } finally {
          inFlight--
        }
        if (reply.status === 201 && reply.body.versionNumber === expected + 1) {
          acks.push({ server: server.name, artifactId, version: expected + 1, content })
          heads.set(artifactId, expected + 1)
          options.onAck?.(acks.length)
          break
        }
        const latest = reply.body.latestVersion
        if (reply.status === 409 && reply.body.code === 'version_conflict' && typeof latest === 'number' && latest > expected) {
          conflicts.set(server.name, (conflicts.get(server.name) ?? 0) + 1)
          heads.set(artifactId, latest)
          continue
        }
        unexpected.push(
          `${server.name}: expected ${expected} on ${artifactId} → ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`,
        )
        return
      }
    }
  }

  const clients = options.servers.flatMap((server) => Array.from({ length: options.clientsPerServer }, (_, i) => client(server, i)))
  return {
    halt: () => {
      halted = true
    },
    inFlight: () => inFlight,
    done: Promise.all(clients).then(() => ({ acks, conflicts, unanswered, unexpected, ms: Date.now() - started })),
  }
}

/**
 * What the database holds for these artifacts, checked against what clients were told:
 * versions 1..latest_version without gaps, every acknowledged append exactly once with its content
 * at its number, exactly one audit event per version (`artifact.created` for 1, then
 * `artifact.version_created`), no event without its version, every referenced content present.
 * Returns the unanswered appends that committed anyway.
 */
async function checkNothingLost(db: Db, artifactIds: readonly string[], acks: readonly Ack[], unanswered: readonly Unanswered[] = []) {
  const versions = await db
    .selectFrom('versions as v')
    .leftJoin('contents as c', 'c.sha256', 'v.content_sha256')
    .select(['v.artifact_id', 'v.number', 'v.content_sha256', 'c.body'])
    .where('v.artifact_id', 'in', [...artifactIds])
    .orderBy('v.artifact_id')
    .orderBy('v.number')
    .execute()
  const heads = await db
    .selectFrom('artifacts')
    .select(['id', 'latest_version'])
    .where('id', 'in', [...artifactIds])
    .execute()
  const events = await db
    .selectFrom('audit_events')
    .select([
      'artifact_id',
      'action',
      sql<number | null>`(data->>'versionNumber')::int`.as('number'),
      sql<string | null>`data->>'sha256'`.as('sha256'),
    ])
    .where('artifact_id', 'in', [...artifactIds])
    .execute()

  expect(heads).toHaveLength(artifactIds.length)
  // Every version's content exists.
  expect(versions.filter((v) => v.body === null)).toEqual([])

  let versionsBeyondFirst = 0
  for (const { id, latest_version } of heads) {
    const numbers = versions.filter((v) => v.artifact_id === id).map((v) => v.number)
    // Contiguous 1..latest_version, and the head is the last version.
    expect(numbers, `versions of ${id}`).toEqual(Array.from({ length: latest_version }, (_, i) => i + 1))
    versionsBeyondFirst += latest_version - 1

    const mine = events.filter((e) => e.artifact_id === id)
    expect(
      mine.filter((e) => e.action === 'artifact.created').map((e) => e.number),
      `creation event of ${id}`,
    ).toEqual([1])
    const appended = mine
      .filter((e) => e.action === 'artifact.version_created')
      .map((e) => e.number)
      .sort((a, b) => (a ?? 0) - (b ?? 0))
    // One event per version beyond the first: none missing, none doubled, none without its version.
    expect(appended, `version events of ${id}`).toEqual(Array.from({ length: latest_version - 1 }, (_, i) => i + 2))
    expect(mine.filter((e) => e.action !== 'artifact.created' && e.action !== 'artifact.version_created')).toEqual([])
    // And each event describes the version it is about.
    const sha = new Map(versions.filter((v) => v.artifact_id === id).map((v) => [v.number, v.content_sha256]))
    expect(mine.filter((e) => e.number === null || sha.get(e.number) !== e.sha256)).toEqual([])
  }
  expect(events.filter((e) => e.action === 'artifact.version_created')).toHaveLength(versionsBeyondFirst)

  // Every acknowledged append is there, at its number, with its content, exactly once.
  const at = new Map(versions.map((v) => [`${v.artifact_id}:${v.number}`, v.body]))
  const occurrences = new Map<string, number>()
  for (const v of versions) if (v.body !== null) occurrences.set(v.body, (occurrences.get(v.body) ?? 0) + 1)
  const lost = acks.filter((a) => at.get(`${a.artifactId}:${a.version}`) !== a.content)
  expect(lost, `${lost.length} of ${acks.length} acknowledged appends are not in the database as acknowledged`).toEqual([])
  expect(acks.filter((a) => occurrences.get(a.content) !== 1)).toEqual([])
  // Two acknowledgements never name the same version.
  expect(new Set(acks.map((a) => `${a.artifactId}:${a.version}`)).size).toBe(acks.length)

  // An unanswered append either committed once (version and event together, checked above) or not at all.
  const committed = unanswered.filter((u) => occurrences.has(u.content))
  expect(committed.filter((u) => occurrences.get(u.content) !== 1)).toEqual([])

  // Nothing half-written anywhere in the database, either.
  const orphanVersions = await db
    .selectFrom('versions as v')
    .leftJoin('artifacts as a', 'a.id', 'v.artifact_id')
    .leftJoin('contents as c', 'c.sha256', 'v.content_sha256')
    .select(['v.artifact_id', 'v.number'])
    .where((eb) => eb.or([eb('a.id', 'is', null), eb('c.sha256', 'is', null)]))
    .execute()
  expect(orphanVersions).toEqual([])
  const { rows: eventsWithoutVersion } = await sql<{ id: string; action: string }>`SELECT e.id, e.action FROM audit_events e
    WHERE e.action IN ('artifact.created', 'artifact.version_created') AND NOT EXISTS (
      SELECT 1 FROM versions v WHERE v.artifact_id = e.artifact_id AND v.number = (e.data->>'versionNumber')::int)`.execute(db)
  expect(eventsWithoutVersion).toEqual([])
  const { rows: headsOff } = await sql<{ id: string; latest_version: number; max: number | null }>`SELECT a.id, a.latest_version,
    (SELECT max(v.number) FROM versions v WHERE v.artifact_id = a.id) AS max FROM artifacts a`.execute(db)
  expect(headsOff.filter((h) => h.max !== h.latest_version)).toEqual([])

  return { versionsBeyondFirst, committed }
}

/** The engine-specific part: a database with a user and API key, the server's environment, and SQL access. */
interface Setup {
  readonly kind: 'postgres' | 'pglite'
  readonly token: string
  readonly username: string
  readonly serverEnv: Record<string, string>
  /** PGlite: the pid file that claims the data directory. */
  readonly lockFile?: string
  /** Runs SQL on the database; for PGlite only while no server holds the data directory. */
  inspect<T>(use: (db: Db) => Promise<T>): Promise<T>
  dispose(): Promise<void>
}

async function postgresSetup(): Promise<Setup> {
  const database = await testDatabase({ poolSize: 4 })
  const url = database.url
  if (!url) throw new Error('a PostgreSQL test database has a URL')
  const runtime = await createRuntime(readEnv({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), { database })
  const issued = await issueOperatorToken(runtime.operator, { email: `writer-${randomUUID().slice(0, 8)}@example.com` })
  return {
    kind: 'postgres',
    token: issued.secret,
    username: issued.user.username,
    serverEnv: { DATABASE_URL: url },
    inspect: (use) => use(database.db),
    dispose: () => runtime.close(),
  }
}

async function pgliteSetup(): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'quire-processes-'))
  const dataDir = join(dir, 'pglite')
  try {
    // The data directory as the server will find it: from the run's migrated snapshot, with a user in it.
    const snapshot = new Blob([await readFile(inject('testRun').pgliteSnapshot)])
    const database = await openDatabase({ kind: 'pglite', dataDir, snapshot })
    const runtime = await createRuntime(readEnv({ QUIRE_DATA_DIR: dir, LOG_LEVEL: 'silent' }), { database })
    const issued = await issueOperatorToken(runtime.operator, { email: `writer-${randomUUID().slice(0, 8)}@example.com` })
    await runtime.close()
    return {
      kind: 'pglite',
      token: issued.secret,
      username: issued.user.username,
      serverEnv: { QUIRE_DATA_DIR: dir },
      lockFile: `${dataDir}.pid`,
      async inspect(use) {
        const handle = await openDatabase({ kind: 'pglite', dataDir })
        try {
          return await use(handle.db)
        } finally {
          await handle.close()
        }
      },
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** GETs run `width` at a time. */
async function inBatches<T, R>(items: readonly T[], width: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(each))))
  return out
}

/** How long the two processes take appends (or until 800 are acknowledged). */
const loadMs = 20_000

describe.runIf(engine === 'postgres')('two API processes on one PostgreSQL database', () => {
  // Waits: both starts at once, then both stops at once.
  it('append concurrently to the same artifacts; every acknowledged append is there once, with its audit event', {
    timeout: timeoutFor(2) + loadMs,
  }, async ({ annotate }) => {
    const setup = await postgresSetup()
    try {
      const [a, b] = await Promise.all([startApiProcess(setup.serverEnv), startApiProcess(setup.serverEnv)])
      if (!a || !b) throw new Error('two servers')
      const artifactIds = await seedArtifacts(a.url, setup.token, setup.username, 3)

      const stream = appendStream({
        servers: [
          { name: 'A', url: a.url },
          { name: 'B', url: b.url },
        ],
        clientsPerServer: 4,
        token: setup.token,
        artifactIds,
        until: { acks: 800, ms: loadMs },
      })
      const result = await stream.done
      const perServer = (name: string) => result.acks.filter((x) => x.server === name).length
      const figures = `${result.acks.length} acknowledged appends in ${result.ms} ms (A ${perServer('A')}, B ${perServer('B')}); conflicts A ${result.conflicts.get('A')}, B ${result.conflicts.get('B')}`
      console.log(`two processes on PostgreSQL: ${figures}`)
      await annotate(figures)

      expect(result.unexpected).toEqual([])
      expect(result.unanswered).toEqual([])
      // Both servers wrote to every artifact: the contention really crossed processes.
      for (const id of artifactIds) {
        expect(result.acks.some((x) => x.artifactId === id && x.server === 'A')).toBe(true)
        expect(result.acks.some((x) => x.artifactId === id && x.server === 'B')).toBe(true)
      }
      expect((result.conflicts.get('A') ?? 0) + (result.conflicts.get('B') ?? 0)).toBeGreaterThan(0)

      const { versionsBeyondFirst } = await setup.inspect((db) => checkNothingLost(db, artifactIds, result.acks))
      // Every request was answered, and a 409 writes nothing: the appended versions are exactly the acknowledged ones.
      expect(versionsBeyondFirst).toBe(result.acks.length)

      const [aExit, bExit] = await Promise.all([a.stop(), b.stop()])
      expect(aExit.code, a.output()).toBe(0)
      expect(bExit.code, b.output()).toBe(0)
    } finally {
      await killAllApiProcesses()
      await setup.dispose()
    }
  })
})

/**
 * One server, a stream of concurrent appends, SIGKILL after KILL_AFTER acknowledgements, a
 * restart on the same database: everything acknowledged is there, nothing is half-written, and
 * the restarted server carries on from the head.
 */
const KILL_AFTER = 150

async function killMidStream(setup: Setup, label: string, annotate: (message: string) => Promise<unknown>) {
  const first = await startApiProcess(setup.serverEnv)
  const artifactIds = await seedArtifacts(first.url, setup.token, setup.username, 3)

  let ackedAtKill = 0
  let inFlightAtKill = 0
  let killedAfterMs = 0
  const started = Date.now()
  const stream = appendStream({
    servers: [{ name: 'first', url: first.url }],
    clientsPerServer: 6,
    token: setup.token,
    artifactIds,
    // A wait for the process's own acknowledgements, as long as any wait.
    until: { acks: Number.POSITIVE_INFINITY, ms: waitBudgetMs },
    onAck: (total) => {
      if (ackedAtKill > 0 || total < KILL_AFTER) return
      ackedAtKill = total
      inFlightAtKill = stream.inFlight()
      killedAfterMs = Date.now() - started
      stream.halt()
      void first.kill()
    },
  })
  const result = await stream.done
  if (ackedAtKill === 0) {
    throw new Error(
      `only ${result.acks.length} appends acknowledged in ${result.ms} ms, never ${KILL_AFTER}, by \`${first.command}\`: ${result.unexpected.join('; ')}\nThe end of its output:\n${tail(first.output())}`,
    )
  }
  const exit = await first.exited
  if (setup.lockFile) {
    // The dead server's claim on the data directory is still there: the restart must see that its owner is gone.
    expect(readFileSync(setup.lockFile, 'utf8')).toBe(String(first.pid))
  }
  // PostgreSQL can be looked at before the restart: the state the crash left.
  const committedBefore =
    setup.kind === 'postgres' ? await setup.inspect((db) => checkNothingLost(db, artifactIds, result.acks, result.unanswered)) : null

  const restartAt = Date.now()
  const second = await startApiProcess(setup.serverEnv)
  const restartMs = Date.now() - restartAt

  // Over HTTP, from the restarted server: every acknowledged version, with its content.
  const read = await inBatches(result.acks, 8, async (ack) => {
    const r = await call(second.url, setup.token, 'GET', `/api/artifacts/${ack.artifactId}/content?version=${ack.version}`)
    return { ack, status: r.status, same: r.body.content === ack.content }
  })
  const lost = read.filter((r) => r.status !== 200 || !r.same)
  const figures =
    `${label}: killed after ${killedAfterMs} ms with ${ackedAtKill} acknowledged and ${inFlightAtKill} in flight; ${result.acks.length - ackedAtKill} more acknowledged as the process died; ` +
    `${result.unanswered.length} unanswered; ${result.conflicts.get('first')} conflicts; ` +
    `${lost.length} acknowledged appends missing after restart; restart took ${restartMs} ms`
  console.log(figures)
  await annotate(figures)
  expect(exit.signal).toBe('SIGKILL')
  expect(result.unexpected).toEqual([])
  expect(ackedAtKill).toBe(KILL_AFTER)
  expect(
    lost.map((r) => ({ artifactId: r.ack.artifactId, version: r.ack.version, status: r.status })),
    `acknowledged before the kill, missing after the restart (${label})`,
  ).toEqual([])

  // The restarted server carries on from the head: it knows it, accepts the next version, refuses a stale one.
  const after: Ack[] = []
  for (const id of artifactIds) {
    const artifact = await call(second.url, setup.token, 'GET', `/api/artifacts/${id}`)
    expect(artifact.status).toBe(200)
    const head = artifact.body.latestVersion as number
    expect(head).toBeGreaterThanOrEqual(Math.max(...result.acks.filter((x) => x.artifactId === id).map((x) => x.version), 1))
    const content = `after restart ${randomUUID()}\n`
    const next = await call(second.url, setup.token, 'POST', `/api/artifacts/${id}/versions`, { content, expectedLatestVersion: head })
    expect(next.status).toBe(201)
    expect(next.body.versionNumber).toBe(head + 1)
    after.push({ server: 'second', artifactId: id, version: head + 1, content })
    const stale = await call(second.url, setup.token, 'POST', `/api/artifacts/${id}/versions`, {
      content: `stale ${randomUUID()}\n`,
      expectedLatestVersion: head,
    })
    expect(stale.status).toBe(409)
    expect(stale.body).toMatchObject({ code: 'version_conflict', latestVersion: head + 1 })
  }
  expect((await second.stop()).code, second.output()).toBe(0)

  const { committed } = await setup.inspect((db) => checkNothingLost(db, artifactIds, [...result.acks, ...after], result.unanswered))
  const summary = `${label}: of ${result.unanswered.length} unanswered appends, ${committed.length} had committed and ${result.unanswered.length - committed.length} had not`
  console.log(summary)
  await annotate(summary)
  if (committedBefore) expect(committedBefore.committed.length).toBe(committed.length)
}

/** Waits of a kill in mid-stream: the start, the acknowledgements before the kill, the restart, the stop. */
const killMidStreamTimeout = timeoutFor(4)

describe('SIGKILL in the middle of a stream of appends', () => {
  it.runIf(engine === 'postgres')(
    'PostgreSQL: everything acknowledged survives, nothing is half-written',
    { timeout: killMidStreamTimeout },
    async ({ annotate }) => {
      const setup = await postgresSetup()
      try {
        await killMidStream(setup, 'PostgreSQL', annotate)
      } finally {
        await killAllApiProcesses()
        await setup.dispose()
      }
    },
  )

  it.runIf(engine === 'pglite')(
    'embedded PGlite: the restart takes over the dead process’s data directory; nothing acknowledged is lost',
    { timeout: killMidStreamTimeout },
    async ({ annotate }) => {
      const setup = await pgliteSetup()
      try {
        await killMidStream(setup, 'PGlite', annotate)
      } finally {
        await killAllApiProcesses()
        await setup.dispose()
      }
    },
  )
})
