/**
 * The data of bench/search, cached across runs. A PostgreSQL database `quire_bench_search_<size>_<hash>`
 * (or a PGlite data directory under node_modules/.cache/quire-bench-search), the hash over the
 * seed's parameters, `SEED_VERSION` and the text of every migration: a rerun finds it and does not
 * seed again; a run stopped half-way goes on where it stopped (each chunk is one transaction that
 * records its progress in `bench_search_seed`).
 *
 * What is in it: `artifacts` Markdown artifacts (corpus.ts), one in five with a second version;
 * `artifacts / 50` users, each with a personal workspace, and 50 team workspaces, each user a
 * member of 1 to 3 teams; 60% of the artifacts in the teams, 40% in personal workspaces; one in ten
 * shared with 1 to 3 people's emails (`viewer_emails`). The caller (`searcher`, made through the
 * use-case with an API key) is a member of 4 teams, owns one artifact in 500 and is on the
 * allowlist of one in 500 more: about 5% of the corpus is theirs to read. A second caller
 * (`reader`) is a member of one other team only (about 1.2%); it is added after the corpus, so a
 * database seeded before it gains it without being seeded again.
 *
 * Bulk rows are written by SQL (multi-row INSERT … SELECT FROM unnest), then indexed by storage's
 * `indexUnindexedVersions` (the search indexes are dropped meanwhile and built again at the end,
 * from their own definitions). Bulk-seeded rows have no audit events: only the caller's account
 * and key, made by the use-cases, have theirs.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { createIdGenerator, issueOperatorToken } from '@quire/core'
import { createRuntime, readEnv } from '@quire/runtime'
import { type DatabaseHandle, indexUnindexedVersions, migrateToLatest, openDatabase } from '@quire/storage'
import { type Kysely, sql } from 'kysely'
import pg from 'pg'
import { prng } from '../prng.ts'
import { document } from './corpus.ts'

/** Bump when the generator or the layout of the data changes: every cached database is then seeded anew. */
const SEED_VERSION = 1
/** Artifacts written per transaction. */
const CHUNK = 1000
const TEAMS = 50
const CALLER_TEAMS = 4
export const CALLER_EMAIL = 'searcher@example.com'
/** The second caller, a member of one team only. */
export const READER_EMAIL = 'reader@example.com'

export interface SeedParameters {
  readonly artifacts: number
  readonly users: number
  readonly teams: number
  readonly seed: number
}

export function parametersFor(artifacts: number): SeedParameters {
  return { artifacts, users: Math.max(10, Math.floor(artifacts / 50)), teams: TEAMS, seed: 32 }
}

/** A caller of a run: their key, what they may read, and where their baselines read. */
export interface Caller {
  readonly name: string
  readonly userId: string
  readonly email: string
  readonly token: string
  /** A team of theirs, whose artifact list is the baseline. */
  readonly teamId: string
  /** An artifact of that team (by path), for the plain indexed lookup. */
  readonly lookupPath: string
  /** Artifacts they may read. */
  readonly readable: number
}

/** What a run needs of a seeded database: its size and its callers. */
export interface Seeded {
  readonly artifacts: number
  readonly callers: readonly Caller[]
}

const root = resolve(import.meta.dirname, '../..')
const migrationsDir = resolve(root, 'packages/storage/src/migrations')

/** The key of a seeded database: its parameters, the generator's version and the migrations, as text. */
export function seedHash(parameters: SeedParameters): string {
  const hash = createHash('sha256').update(JSON.stringify({ parameters, SEED_VERSION }))
  for (const name of readdirSync(migrationsDir)
    .filter((f) => f.endsWith('.ts'))
    .sort())
    hash.update(name).update(readFileSync(resolve(migrationsDir, name)))
  return hash.digest('hex').slice(0, 10)
}

const label = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n))
export const postgresName = (p: SeedParameters) => `quire_bench_search_${label(p.artifacts)}_${seedHash(p)}`
export const pgliteDir = (p: SeedParameters) =>
  resolve(root, 'node_modules/.cache/quire-bench-search', `pglite-${label(p.artifacts)}-${seedHash(p)}`)

const withDatabase = (url: string, name: string) => {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/** The cached PostgreSQL database of `p` on the server of `adminUrl`, seeded (or finished) first if need be: its URL. */
export async function postgresSeeded(adminUrl: string, p: SeedParameters, reseed: boolean, log: (line: string) => void): Promise<string> {
  const name = postgresName(p)
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
    if (exists && reseed) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
    if (!exists || reseed) await admin.query(`CREATE DATABASE ${name}`)
    // A database of the same size under another hash was seeded for older parameters or migrations.
    const stale = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2', [
      `quire_bench_search_${label(p.artifacts)}_%`,
      name,
    ])
    for (const { datname } of stale.rows) log(`(a stale seed is still there: DROP DATABASE ${datname} frees its space)`)
  } finally {
    await admin.end()
  }
  const url = withDatabase(adminUrl, name)
  const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
  try {
    await seed(handle, p, `${name}`, log)
  } finally {
    await handle.close()
  }
  return url
}

/** The cached PGlite data directory of `p` (QUIRE_DATA_DIR: the database is in its `pglite`), seeded first if need be. */
export async function pgliteSeeded(p: SeedParameters, reseed: boolean, log: (line: string) => void): Promise<string> {
  const dir = pgliteDir(p)
  if (reseed && existsSync(dir)) rmSync(dir, { recursive: true })
  const handle = await openDatabase({ kind: 'pglite', dataDir: resolve(dir, 'pglite') })
  try {
    await seed(handle, p, dir, log)
  } finally {
    await handle.close()
  }
  return dir
}

/** What the seed knows of the caller once its account is made. */
async function readState(db: Kysely<unknown>): Promise<Map<string, string>> {
  await sql`CREATE TABLE IF NOT EXISTS bench_search_seed (key text PRIMARY KEY, value text NOT NULL)`.execute(db)
  const { rows } = await sql<{ key: string; value: string }>`SELECT key, value FROM bench_search_seed`.execute(db)
  return new Map(rows.map((r) => [r.key, r.value]))
}

const setState = (db: Kysely<unknown>, key: string, value: string) =>
  sql`INSERT INTO bench_search_seed (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`.execute(
    db,
  )

async function seed(handle: DatabaseHandle, p: SeedParameters, where: string, log: (line: string) => void): Promise<void> {
  const db = handle.db as unknown as Kysely<unknown>
  await migrateToLatest(handle.db)
  let state = await readState(db)
  if (state.get('complete') !== 'yes') log(`seeding ${where} (${p.artifacts} artifacts; resumable, cached for later runs)…`)
  const started = Date.now()

  // The caller, through the use-case (a verified email, an API key), and everyone else by SQL.
  if (!state.has('token')) {
    const runtime = await createRuntime(readEnv({ LOG_LEVEL: 'silent' }), { database: handle })
    const token = await issueOperatorToken(runtime.operator, { email: CALLER_EMAIL, name: 'bench/search' })
    const time = createIdGenerator().next('art').slice(4, 14)
    await db.transaction().execute(async (trx) => {
      await organisation(trx, p, time, token.user.id, token.user.username)
      await setState(trx, 'time', time)
      await setState(trx, 'user', token.user.id)
      await setState(trx, 'username', token.user.username)
      await setState(trx, 'token', token.secret)
    })
    state = await readState(db)
  }
  const time = state.get('time') ?? ''
  const id = (prefix: string, n: number) => `${prefix}_${time}${n.toString(16).padStart(16, '0')}`
  const callerId = state.get('user') ?? ''
  const callerName = state.get('username') ?? ''

  for (let from = Number(state.get('artifacts') ?? 0) + 1; from <= p.artifacts; from += CHUNK) {
    const to = Math.min(p.artifacts, from + CHUNK - 1)
    await db.transaction().execute(async (trx) => {
      await artifacts(trx, p, from, to, { id, callerId, callerName })
      await setState(trx, 'artifacts', String(to))
    })
    if (to % (10 * CHUNK) === 0 || to === p.artifacts) log(`  ${to} artifacts written (${((Date.now() - started) / 1000).toFixed(0)} s)`)
  }

  if (state.get('complete') !== 'yes') {
    // Built once at the end, not row by row: the search indexes go, and come back from their definitions.
    const saved = state.get('indexes')
    const definitions: string[] = saved
      ? JSON.parse(saved)
      : (
          await sql<{ def: string }>`SELECT indexdef AS def FROM pg_indexes
            WHERE tablename = 'search_versions' AND indexname <> 'search_versions_pkey'`.execute(db)
        ).rows.map((r) => r.def)
    if (!saved) await setState(db, 'indexes', JSON.stringify(definitions))
    for (const def of definitions) {
      const name = /INDEX (\S+) ON/.exec(def)?.[1]
      if (name) await sql.raw(`DROP INDEX IF EXISTS ${name}`).execute(db)
    }
    let last = 0
    const indexed = await indexUnindexedVersions(db, (n) => {
      if (n - last >= 10_000) {
        last = n
        log(`  ${n} versions indexed (${((Date.now() - started) / 1000).toFixed(0)} s)`)
      }
    })
    log(`  ${indexed} versions indexed; building the search indexes…`)
    if (handle.kind === 'postgres') await sql`SET maintenance_work_mem = '512MB'`.execute(db)
    for (const def of definitions) await sql.raw(def.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS')).execute(db)
    await sql`VACUUM (ANALYZE)`.execute(db)
    await setState(db, 'complete', 'yes')
    log(`seeded ${where} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  }

  // A second caller who reads less: a member of one other team only. Added after the corpus (the
  // corpus does not change), so a database seeded before it gains it without being seeded again.
  if (!state.has('reader-token')) {
    const runtime = await createRuntime(readEnv({ LOG_LEVEL: 'silent' }), { database: handle })
    const token = await issueOperatorToken(runtime.operator, { email: READER_EMAIL, name: 'bench/search' })
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO memberships (workspace_id, user_id, role, created_at)
        SELECT id, ${token.user.id}, 'member', now() FROM workspaces WHERE slug = ${`team-${CALLER_TEAMS + 1}`}`.execute(trx)
      await setState(trx, 'reader-user', token.user.id)
      await setState(trx, 'reader-token', token.secret)
    })
  }
}

/** Users, their personal workspaces, the teams and memberships, one project per workspace. */
async function organisation(db: Kysely<unknown>, p: SeedParameters, time: string, callerId: string, callerName: string) {
  const id = (prefix: string, n: number) => `${prefix}_${time}${n.toString(16).padStart(16, '0')}`
  const random = prng(p.seed)
  const at = new Date('2025-01-01T00:00:00Z')
  const users = Array.from({ length: p.users }, (_, i) => i + 1)
  const teams = Array.from({ length: p.teams }, (_, i) => p.users + i + 1)
  const workspaceRows = [
    ...users.map((u) => ({ id: id('ws', u), slug: `u-${u}`, kind: 'personal' })),
    ...teams.map((t, i) => ({ id: id('ws', t), slug: `team-${i + 1}`, kind: 'team' })),
  ]
  await sql`INSERT INTO workspaces (id, slug, kind, name, plan, created_at)
    SELECT id, slug, kind, slug, 'free', ${at}::timestamptz
    FROM unnest(${workspaceRows.map((w) => w.id)}::text[], ${workspaceRows.map((w) => w.slug)}::text[], ${workspaceRows.map((w) => w.kind)}::text[])
      AS x(id, slug, kind)`.execute(db)
  await sql`INSERT INTO users (id, email, email_verified, personal_workspace_id, username, created_at)
    SELECT id, 'u-' || n || '@example.com', true, ws, 'u-' || n, ${at}::timestamptz
    FROM unnest(${users.map((u) => id('usr', u))}::text[], ${users.map((u) => id('ws', u))}::text[], ${users}::int[]) AS x(id, ws, n)`.execute(
    db,
  )
  // Each team is owned by one user; each user is a member of 1 to 3 teams; the caller of 4.
  const members: { ws: string; user: string; role: string }[] = users.map((u) => ({ ws: id('ws', u), user: id('usr', u), role: 'owner' }))
  for (const [i, t] of teams.entries()) members.push({ ws: id('ws', t), user: id('usr', (i % p.users) + 1), role: 'owner' })
  const seen = new Set(members.map((m) => `${m.ws} ${m.user}`))
  for (const u of users) {
    for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
      const m = { ws: id('ws', teams[Math.floor(random() * p.teams)] ?? 0), user: id('usr', u), role: 'member' }
      if (!seen.has(`${m.ws} ${m.user}`)) members.push(m)
      seen.add(`${m.ws} ${m.user}`)
    }
  }
  for (let k = 0; k < CALLER_TEAMS; k++) members.push({ ws: id('ws', teams[k] ?? 0), user: callerId, role: 'member' })
  await sql`INSERT INTO memberships (workspace_id, user_id, role, created_at)
    SELECT ws, usr, role, ${at}::timestamptz
    FROM unnest(${members.map((m) => m.ws)}::text[], ${members.map((m) => m.user)}::text[], ${members.map((m) => m.role)}::text[]) AS x(ws, usr, role)`.execute(
    db,
  )
  const owners = [
    ...workspaceRows.map((w, i) => ({ ws: w.id, prj: id('prj', i + 1), by: id('usr', (i % p.users) + 1) })),
    { ws: (await callerWorkspace(db, callerId)) ?? '', prj: id('prj', workspaceRows.length + 1), by: callerId },
  ]
  await sql`INSERT INTO projects (id, workspace_id, slug, title, description, icon, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT prj, ws, 'docs', 'Docs', '', 'd', ${at}::timestamptz, 'user', by, 'seed'
    FROM unnest(${owners.map((o) => o.prj)}::text[], ${owners.map((o) => o.ws)}::text[], ${owners.map((o) => o.by)}::text[]) AS x(prj, ws, by)`.execute(
    db,
  )
  void callerName
}

async function callerWorkspace(db: Kysely<unknown>, userId: string): Promise<string | undefined> {
  const { rows } = await sql<{ ws: string }>`SELECT personal_workspace_id AS ws FROM users WHERE id = ${userId}`.execute(db)
  return rows[0]?.ws
}

/** Artifacts `from`…`to`: their contents, artifact rows and versions, in one transaction. */
async function artifacts(
  db: Kysely<unknown>,
  p: SeedParameters,
  from: number,
  to: number,
  who: { id: (prefix: string, n: number) => string; callerId: string; callerName: string },
) {
  const { id, callerId, callerName } = who
  const callerWs = (await callerWorkspace(db, callerId)) ?? ''
  const callerProject = id('prj', p.users + p.teams + 1)
  const contents = new Map<string, { body: string; size: number }>()
  const a = {
    id: [] as string[],
    ws: [] as string[],
    prj: [] as string[],
    slug: [] as string[],
    title: [] as string[],
    description: [] as string[],
    viewers: [] as string[],
    latest: [] as number[],
    at: [] as string[],
    by: [] as string[],
    label: [] as string[],
  }
  const v = { artifact: [] as string[], number: [] as number[], sha: [] as string[], size: [] as number[], at: [] as string[] }
  const sha = (body: string) => createHash('sha256').update(body).digest('hex')
  for (let n = from; n <= to; n++) {
    const random = prng(p.seed * 7919 + n)
    const doc = document(p.seed, n, n % 1000 === 0 || n % 5000 === 7)
    // Where it lives: the caller's own namespace (1 in 500), a team (60%), or someone's personal workspace.
    let ws: number
    let owner: number
    if (n % 500 === 7) ws = owner = 0
    else if (random() < 0.6) {
      const team = Math.floor(random() * p.teams)
      ws = p.users + team + 1
      owner = (Math.floor(random() * p.users) % p.users) + 1
    } else ws = owner = Math.floor(random() * p.users) + 1
    const viewers: string[] = []
    if (random() < 0.1)
      for (let k = 1 + Math.floor(random() * 3); k > 0; k--) viewers.push(`u-${Math.floor(random() * p.users) + 1}@example.com`)
    if (n % 500 === 250) viewers.push(CALLER_EMAIL)
    const at = new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString()
    const bodies = [doc.content]
    if (n % 5 === 0) bodies.push(`${doc.content}\n## Update ${n}\n\nThe ${doc.title.toLowerCase()} changed after review.\n`)
    for (const [i, body] of bodies.entries()) {
      const hash = sha(body)
      contents.set(hash, { body, size: Buffer.byteLength(body) })
      v.artifact.push(id('art', n))
      v.number.push(i + 1)
      v.sha.push(hash)
      v.size.push(Buffer.byteLength(body))
      v.at.push(at)
    }
    a.id.push(id('art', n))
    a.ws.push(ws === 0 ? callerWs : id('ws', ws))
    a.prj.push(ws === 0 ? callerProject : id('prj', ws))
    a.slug.push(`doc-${n}`)
    a.title.push(doc.title)
    a.description.push(doc.description)
    a.viewers.push([...new Set(viewers)].join('\n'))
    a.latest.push(bodies.length)
    a.at.push(at)
    a.by.push(owner === 0 ? callerId : id('usr', owner))
    a.label.push(owner === 0 ? callerName : `u-${owner}`)
  }
  const c = [...contents.entries()]
  await sql`INSERT INTO contents (sha256, body, size, created_at)
    SELECT sha, body, size, now() FROM unnest(${c.map(([h]) => h)}::text[], ${c.map(([, x]) => x.body)}::text[], ${c.map(([, x]) => x.size)}::int[])
      AS x(sha, body, size)
    ON CONFLICT DO NOTHING`.execute(db)
  await sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, description, public_view, public_edit,
      viewer_emails, latest_version, created_at, updated_at, deleted_at, created_by_kind, created_by_id, created_by_label)
    SELECT id, ws, prj, slug, 'md', title, description, false, false,
      coalesce(string_to_array(nullif(viewers, ''), E'\n'), '{}'), latest, at, at, NULL, 'user', by, label
    FROM unnest(${a.id}::text[], ${a.ws}::text[], ${a.prj}::text[], ${a.slug}::text[], ${a.title}::text[], ${a.description}::text[],
      ${a.viewers}::text[], ${a.latest}::int[], ${a.at}::timestamptz[], ${a.by}::text[], ${a.label}::text[])
      AS x(id, ws, prj, slug, title, description, viewers, latest, at, by, label)`.execute(db)
  await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, restored_from, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT x.artifact, x.number, x.sha, x.size, '', NULL, x.at, a.created_by_kind, a.created_by_id, a.created_by_label
    FROM unnest(${v.artifact}::text[], ${v.number}::int[], ${v.sha}::text[], ${v.size}::int[], ${v.at}::timestamptz[]) AS x(artifact, number, sha, size, at)
    JOIN artifacts a ON a.id = x.artifact`.execute(db)
}

/** The callers' keys and what their baselines read, from a seeded database. */
export async function seededFixtures(db: Kysely<unknown>): Promise<Seeded> {
  const state = await readState(db)
  const caller = async (name: string, userId: string, email: string, token: string): Promise<Caller> => {
    const team = await sql<{ id: string; slug: string }>`SELECT w.id, w.slug FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = ${userId} AND w.kind = 'team' ORDER BY w.slug LIMIT 1`.execute(db)
    const teamId = team.rows[0]?.id ?? ''
    const doc = await sql<{ slug: string }>`SELECT slug FROM artifacts WHERE workspace_id = ${teamId} ORDER BY id LIMIT 1`.execute(db)
    const readable = await sql<{ n: number }>`SELECT count(*)::int AS n FROM artifacts a
      WHERE a.workspace_id IN (SELECT workspace_id FROM memberships WHERE user_id = ${userId}) OR a.viewer_emails @> ARRAY[${email}::text]`.execute(
      db,
    )
    return {
      name,
      userId,
      email,
      token,
      teamId,
      lookupPath: `${team.rows[0]?.slug ?? ''}/docs/${doc.rows[0]?.slug ?? ''}`,
      readable: readable.rows[0]?.n ?? 0,
    }
  }
  const all = await sql<{ n: number }>`SELECT count(*)::int AS n FROM artifacts`.execute(db)
  return {
    artifacts: all.rows[0]?.n ?? 0,
    callers: [
      await caller('4 teams', state.get('user') ?? '', CALLER_EMAIL, state.get('token') ?? ''),
      await caller('1 team', state.get('reader-user') ?? '', READER_EMAIL, state.get('reader-token') ?? ''),
    ],
  }
}
