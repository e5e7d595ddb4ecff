/**
 * The data of bench/live, made through the use-cases (so every artifact has its audit events and
 * its change events, written by the trigger as in production) on a fresh database:
 *
 * - `users` owners of 2 API keys each, each with a project `spread` of `perUser` ~1 KiB Markdown
 *   artifacts (every other one public): the idle streams follow these, one stream per artifact,
 *   by the owner's keys in turn;
 * - one more owner (`live`) of 2 API keys with a project `live` of 20 artifacts: the measured
 *   streams follow these by one key while the other appends (an agent writing, a person watching);
 * - `history` older change events spread over all the artifacts, numbered before the run, so the
 *   change stream is a long one and the followers' reads find their rows among many.
 */
import { type Caller, createArtifact, createProject, issueOperatorToken, sha256Hex } from '@quire/core'
import { createRuntime, readEnv } from '@quire/runtime'
import { sequenceChanges } from '@quire/storage'
import type { TestDatabase } from '@quire/storage/testing'
import { sql } from 'kysely'

/** A ~1 KiB document, the size of bench/api's; `n` makes each text its own. */
export const documentText = (n: number) =>
  `# Document ${String(n).padStart(11, '0')}\n\n${'Quire keeps every version of every artifact. '.repeat(22)}\n`

export interface Owner {
  readonly username: string
  readonly keys: readonly [string, string]
  readonly artifactIds: readonly string[]
}

export interface LiveFixtures {
  /** The owners of the idle streams' artifacts. */
  readonly spread: readonly Owner[]
  /** The owner of the measured artifacts, in project `live`. */
  readonly live: Owner
}

export async function seed(database: TestDatabase, shape: { users: number; perUser: number; history: number }): Promise<LiveFixtures> {
  const runtime = await createRuntime(readEnv({ DATABASE_URL: database.url ?? '', LOG_LEVEL: 'silent' }), { database })
  let made = 0
  const owner = async (email: string, project: string, artifacts: number): Promise<Owner> => {
    const first = await issueOperatorToken(runtime.operator, { email, name: 'agent' })
    const second = await issueOperatorToken(runtime.operator, { email, name: 'person' })
    const caller: Caller = { credential: { secretHash: await sha256Hex(first.secret) }, surface: 'api' }
    const username = first.user.username
    const created = await createProject(runtime.deps, caller, { ownerUsername: username, slug: project, title: project, icon: 'l' })
    if (!created.ok) throw new Error(created.error.message)
    const artifactIds: string[] = []
    for (let i = 0; i < artifacts; i++) {
      const r = await createArtifact(runtime.deps, caller, {
        ownerUsername: username,
        projectSlug: project,
        slug: `doc-${i}`,
        type: 'md',
        title: `Document ${i}`,
        content: documentText(made++),
        changelog: '',
        access: { publicView: i % 2 === 0, publicEdit: false },
      })
      if (!r.ok) throw new Error(r.error.message)
      artifactIds.push(r.value.value.id)
    }
    return { username, keys: [first.secret, second.secret], artifactIds }
  }
  const spread: Owner[] = []
  for (let u = 0; u < shape.users; u++) spread.push(await owner(`live-${u}@example.com`, 'spread', shape.perUser))
  const live = await owner('live@example.com', 'live', 20)
  // Older changes, before the seed's own: version_created events of every artifact in turn.
  await sql`INSERT INTO change_events (id, at, kind, artifact_id, project_id, workspace_id, version_number, actor_kind, actor_id, actor_label)
    SELECT 'hist_' || n, now() - interval '30 days' + n * interval '1 second', 'artifact.version_created',
      a.id, a.project_id, a.workspace_id, 1 + n / 1000, 'operator', 'o', 'o'
    FROM generate_series(1, ${shape.history}::int) AS n
    JOIN (SELECT id, project_id, workspace_id, row_number() OVER (ORDER BY id) - 1 AS i FROM artifacts) a
      ON a.i = n % (SELECT count(*) FROM artifacts)`.execute(database.db)
  await sequenceChanges(database.db)
  await sql`ANALYZE`.execute(database.db)
  return { spread, live }
}
