import { appendVersion, createArtifact, createProject, issueOperatorToken, sha256Hex } from '@quire/core'
import { createRuntime, readEnv } from '@quire/runtime'
import type { TestDatabase } from '@quire/storage/testing'
import { sql } from 'kysely'

/** A ~1 KiB Markdown document, the payload size for reads and appends on both sides. */
const content = `# Benchmark document\n\n${'Quire keeps every version of every artifact. '.repeat(22)}\n`

/** An owner with an API key, a public and a private artifact, one with 10,000 versions, and one artifact per append connection. */
export async function seed(database: TestDatabase, appendArtifacts: number) {
  const runtime = await createRuntime(readEnv({ DATABASE_URL: database.url ?? '', LOG_LEVEL: 'silent' }), { database })
  const deps = runtime.deps
  const token = await issueOperatorToken(runtime.operator, { email: 'bench@example.com' })
  const caller = { credential: { secretHash: await sha256Hex(token.secret) }, surface: 'api' as const }
  const owner = token.user.username
  const project = await createProject(deps, caller, { ownerUsername: owner, slug: 'bench', title: 'Bench', icon: 'b' })
  if (!project.ok) throw new Error(project.error.message)
  const make = async (slug: string, publicView: boolean) => {
    const r = await createArtifact(deps, caller, {
      ownerUsername: owner,
      projectSlug: 'bench',
      slug,
      type: 'md',
      title: slug,
      content,
      changelog: '',
      access: { publicView, publicEdit: false },
    })
    if (!r.ok) throw new Error(r.error.message)
    return r.value.value.id
  }
  const publicId = await make('public', true)
  const privateId = await make('private', false)
  const second = await appendVersion(deps, caller, privateId, { content: `${content}\nv2\n`, expectedLatestVersion: 1 })
  if (!second.ok) throw new Error(second.error.message)
  const longHistoryId = await make('long-history', false)
  await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT ${longHistoryId}, n, v.content_sha256, v.size, '', now(), 'operator', 'o', 'o'
    FROM generate_series(2, 10000) AS n, (SELECT content_sha256, size FROM versions WHERE artifact_id = ${longHistoryId} AND number = 1) AS v`.execute(
    database.db,
  )
  await sql`UPDATE artifacts SET latest_version = 10000 WHERE id = ${longHistoryId}`.execute(database.db)
  const appendIds: string[] = []
  for (let i = 0; i < appendArtifacts; i++) appendIds.push(await make(`append-${i}`, false))
  await sql`ANALYZE`.execute(database.db)
  return { token: token.secret, publicId, privateId, longHistoryId, appendIds, content }
}
