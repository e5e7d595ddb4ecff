/**
 * The data of bench/scale: the caller and its fixtures through the use-cases (as the API makes
 * them), then everything else by bulk SQL (INSERT … SELECT generate_series) copying the rows the
 * use-cases wrote, so that each bulk row is what the app would have written: an artifact with its
 * version 1 and its `artifact.created` event, in other owners' personal workspaces.
 */
import { createArtifact, createIdGenerator, createProject, createWorkspace, issueOperatorToken, sha256Hex } from '@quire/core'
import { createRuntime, readEnv } from '@quire/runtime'
import type { TestDatabase } from '@quire/storage/testing'
import { sql } from 'kysely'

/** A ~1 KiB Markdown document, as bench/api reads and appends. */
export const content = `# Benchmark document\n\n${'Quire keeps every version of every artifact. '.repeat(22)}\n`

/** The caller's own artifacts (besides its fixtures): few, and older than everyone else's. */
export const CALLER_ARTIFACTS = 200

export interface Fixtures {
  readonly token: string
  readonly owner: string
  readonly workspaceId: string
  /** The artifact appended to, read by path and by id, and whose trail is read. */
  readonly docId: string
  /** An artifact with three versions, for catch-up since version 1. */
  readonly catchUpId: string
  /** Artifacts in the database now. */
  artifacts: number
}

/** `otherOwners`: the owners of the rest of the database, each a user with a personal workspace and one project. */
export async function seedFixtures(database: TestDatabase, otherOwners: number) {
  const OTHER_OWNERS = otherOwners
  const runtime = await createRuntime(readEnv({ DATABASE_URL: database.url ?? '', LOG_LEVEL: 'silent' }), { database })
  const deps = runtime.deps
  const token = await issueOperatorToken(runtime.operator, { email: 'scale@example.com' })
  const caller = { credential: { secretHash: await sha256Hex(token.secret) }, surface: 'api' as const }
  const owner = token.user.username
  const must = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
    if (!r.ok) throw new Error(r.error.message)
    return r.value
  }
  must(await createProject(deps, caller, { ownerUsername: owner, slug: 'bench', title: 'Bench', icon: 'b' }))
  const make = async (ownerUsername: string, projectSlug: string, slug: string) =>
    must(
      await createArtifact(deps, caller, {
        ownerUsername,
        projectSlug,
        slug,
        type: 'md',
        title: slug,
        content,
        changelog: '',
        access: { publicView: false, publicEdit: false },
      }),
    ).value.id
  const docId = await make(owner, 'bench', 'doc')
  const catchUpId = await make(owner, 'bench', 'catch-up')
  const db = database.db
  // Catch-up reads versions 2 and 3 and the diff from 1 to 3.
  for (const n of [2, 3]) {
    await sql`INSERT INTO contents (sha256, body, size, created_at)
      VALUES (${await sha256Hex(`${content}v${n}\n`)}, ${`${content}v${n}\n`}, ${content.length + 3}, now())`.execute(db)
    await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, restored_from, created_at, created_by_kind, created_by_id, created_by_label)
      SELECT artifact_id, ${n}::int, ${await sha256Hex(`${content}v${n}\n`)}, size + 3, '', NULL, now(), created_by_kind, created_by_id, created_by_label
      FROM versions WHERE artifact_id = ${catchUpId} AND number = 1`.execute(db)
  }
  await sql`UPDATE artifacts SET latest_version = 3 WHERE id = ${catchUpId}`.execute(db)
  const profile = await deps.accounts.profile(token.user.id)
  if (profile === null) throw new Error('the caller has no profile')

  // Every bulk id: the time part of an id made now, then a counter in hex (valid TypeID
  // characters), so bulk rows sort after the fixtures, in the order they are made.
  await new Promise((r) => setTimeout(r, 5))
  const time = createIdGenerator().next('art').slice(4, 14)
  const idSql = (prefix: string, n: string) => `'${prefix}_${time}' || lpad(to_hex(${n}), 16, '0')`
  await sql
    .raw(`INSERT INTO workspaces (id, slug, kind, name, plan, created_at)
      SELECT ${idSql('wsp', 'o')}, 'owner-' || o, 'personal', 'owner-' || o, 'free', now() FROM generate_series(1, ${OTHER_OWNERS}) AS o`)
    .execute(db)
  await sql
    .raw(`INSERT INTO users (id, email, email_verified, personal_workspace_id, username, created_at)
      SELECT ${idSql('usr', 'o')}, 'owner-' || o || '@example.com', true, ${idSql('wsp', 'o')}, 'owner-' || o, now()
      FROM generate_series(1, ${OTHER_OWNERS}) AS o`)
    .execute(db)
  await sql
    .raw(`INSERT INTO memberships (workspace_id, user_id, role, created_at)
      SELECT ${idSql('wsp', 'o')}, ${idSql('usr', 'o')}, 'owner', now() FROM generate_series(1, ${OTHER_OWNERS}) AS o`)
    .execute(db)
  await sql
    .raw(`INSERT INTO projects (id, workspace_id, slug, title, description, icon, created_at, created_by_kind, created_by_id, created_by_label)
      SELECT ${idSql('prj', 'o')}, ${idSql('wsp', 'o')}, 'docs', 'Docs', '', 'd', now(), 'user', ${idSql('usr', 'o')}, 'owner-' || o
      FROM generate_series(1, ${OTHER_OWNERS}) AS o`)
    .execute(db)

  const fixtures: Fixtures = {
    token: token.secret,
    owner,
    workspaceId: profile.personalWorkspaceId,
    docId,
    catchUpId,
    artifacts: 2,
  }
  // The caller's own artifacts come first (counter 1…200), so every other owner's are newer.
  const callerProject = sql`(SELECT id FROM projects WHERE workspace_id = ${profile.personalWorkspaceId} AND slug = 'bench')`
  await bulkArtifacts(db, idSql, docId, 1, CALLER_ARTIFACTS, {
    workspace: sql`${profile.personalWorkspaceId}::text`,
    project: callerProject,
    userId: sql`${token.user.id}::text`,
    label: sql`${owner}::text`,
    projectSlug: sql`'bench'`,
  })
  fixtures.artifacts += CALLER_ARTIFACTS
  await sql`ANALYZE`.execute(db)
  let trailEvents = 0
  /** The last bulk artifact's number. */
  let counter = CALLER_ARTIFACTS
  const ownerOf = (part: string) => sql.raw(idSql(part, `(n % ${OTHER_OWNERS} + 1)`))
  return {
    fixtures,
    /** Grows the database to `total` artifacts (histories and trails made first), the new ones spread over the other owners. */
    async growArtifacts(total: number) {
      const add = total - fixtures.artifacts
      await bulkArtifacts(db, idSql, docId, counter + 1, counter + add, {
        workspace: ownerOf('wsp'),
        project: ownerOf('prj'),
        userId: ownerOf('usr'),
        label: sql.raw(`'owner-' || (n % ${OTHER_OWNERS} + 1)`),
        projectSlug: sql`'docs'`,
      })
      counter += add
      fixtures.artifacts = total
      // VACUUM too: autovacuum would otherwise visit the new rows while the bench reads (its
      // backends count as the database's CPU), and a table in use has its visibility map set.
      await sql`VACUUM (ANALYZE)`.execute(db)
    },
    /** A new artifact of the caller's with `total` versions (copies of version 1, as a restore writes them): its id. */
    async history(total: number) {
      const id = await make(owner, 'bench', `history-${total}`)
      await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, restored_from, created_at, created_by_kind, created_by_id, created_by_label)
        SELECT v.artifact_id, n, v.content_sha256, v.size, '', 1, now(), v.created_by_kind, v.created_by_id, v.created_by_label
        FROM generate_series(2, ${total}::int) AS n, (SELECT * FROM versions WHERE artifact_id = ${id} AND number = 1) AS v`.execute(db)
      await sql`UPDATE artifacts SET latest_version = ${total}::int WHERE id = ${id}`.execute(db)
      fixtures.artifacts++
      return id
    },
    /** A new team workspace of the caller's whose trail holds `total` events (its artifact's creation, then version events as appends write them): its id. */
    async trail(total: number) {
      const slug = `trail-${total}`
      const teamId = must(await createWorkspace(deps, caller, { slug, name: slug })).value.id
      must(await createProject(deps, caller, { ownerUsername: slug, slug: 'trail', title: 'Trail', icon: 't' }))
      await make(slug, 'trail', 'noted')
      fixtures.artifacts++
      const have = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_events WHERE workspace_id = ${teamId}`.execute(db)
      const from = trailEvents + 1
      trailEvents += total - (have.rows[0]?.n ?? 0)
      const evt = sql.raw(`'evt_${time}f' || lpad(to_hex(k), 15, '0')`)
      await sql`INSERT INTO audit_events (id, at, action, actor_kind, actor_id, actor_label, via_surface, via_credential, via_credential_id,
          workspace_id, artifact_id, data, actor_for_id, actor_for_label)
        SELECT ${evt}, now(), 'artifact.version_created', t.actor_kind, t.actor_id, t.actor_label, t.via_surface, t.via_credential,
          t.via_credential_id, t.workspace_id, t.artifact_id,
          jsonb_build_object('versionNumber', k - ${from}::int + 2, 'sha256', t.data->>'sha256', 'size', ${content.length}::int, 'restoredFrom', NULL), NULL, NULL
        FROM generate_series(${from}::int, ${trailEvents}::int) AS k,
          (SELECT * FROM audit_events WHERE workspace_id = ${teamId} AND action = 'artifact.created') AS t`.execute(db)
      return teamId
    },
  }
}

type IdSql = (prefix: string, n: string) => string

/** Artifacts `from`…`to` of the counter, each with its version 1 and its `artifact.created` event, copied from `templateId`'s. */
async function bulkArtifacts(
  db: TestDatabase['db'],
  idSql: IdSql,
  templateId: string,
  from: number,
  to: number,
  who: {
    workspace: ReturnType<typeof sql>
    project: ReturnType<typeof sql>
    userId: ReturnType<typeof sql>
    label: ReturnType<typeof sql>
    projectSlug: ReturnType<typeof sql>
  },
) {
  if (to < from) return
  const id = sql.raw(idSql('art', 'n'))
  const evt = sql.raw(idSql('evt', 'n'))
  const series = sql`generate_series(${from}::int, ${to}::int) AS n`
  await sql`INSERT INTO artifacts (id, workspace_id, project_id, slug, type, title, description, public_view, public_edit,
      viewer_emails, latest_version, created_at, updated_at, deleted_at, created_by_kind, created_by_id, created_by_label)
    SELECT ${id}, ${who.workspace}, ${who.project}, 'doc-' || n, t.type, 'doc-' || n, t.description, false, false,
      t.viewer_emails, 1, t.created_at, t.updated_at, NULL, 'user', ${who.userId}, ${who.label}
    FROM ${series}, (SELECT * FROM artifacts WHERE id = ${templateId}) AS t`.execute(db)
  await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, restored_from, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT ${id}, 1, t.content_sha256, t.size, '', NULL, t.created_at, 'user', ${who.userId}, ${who.label}
    FROM ${series}, (SELECT * FROM versions WHERE artifact_id = ${templateId} AND number = 1) AS t`.execute(db)
  await sql`INSERT INTO audit_events (id, at, action, actor_kind, actor_id, actor_label, via_surface, via_credential, via_credential_id,
      workspace_id, artifact_id, data, actor_for_id, actor_for_label)
    SELECT ${evt}, t.at, 'artifact.created', 'user', ${who.userId}, ${who.label}, t.via_surface, t.via_credential, NULL,
      ${who.workspace}, ${id},
      jsonb_build_object('slug', 'doc-' || n, 'projectSlug', ${who.projectSlug}, 'type', 'md', 'versionNumber', 1, 'sha256', t.data->>'sha256'),
      NULL, NULL
    FROM ${series}, (SELECT * FROM audit_events WHERE artifact_id = ${templateId} AND action = 'artifact.created') AS t`.execute(db)
}
