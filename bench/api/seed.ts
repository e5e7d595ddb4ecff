import { appendVersion, type Caller, createArtifact, createProject, issueOperatorToken, sha256Hex } from '@quire/core'
import { createRuntime, type Runtime, readEnv } from '@quire/runtime'
import type { TestDatabase } from '@quire/storage/testing'
import { sql } from 'kysely'

/** A ~1 KiB Markdown document, the payload size for reads and appends on both sides. */
const content = `# Benchmark document\n\n${'Quire keeps every version of every artifact. '.repeat(22)}\n`

/** How many owners, keys per owner and artifacts the spread reads go over. */
export interface SpreadShape {
  readonly owners: number
  readonly keysPerOwner: number
  readonly artifacts: number
}

/** A ~1 KiB document of its own for artifact `i` of the spread: the same size as `content`, a different text and hash. */
export const spreadContent = (i: number) => content.replace('# Benchmark document', `# Document ${String(i).padStart(11, '0')}`)

/** No spread: the cases that read one artifact need none. */
const noSpread: SpreadShape = { owners: 0, keysPerOwner: 0, artifacts: 0 }

/**
 * An owner with an API key, a public and a private artifact, one with 10,000 versions, one artifact
 * per append connection, and the spread: `shape.artifacts` artifacts of two versions each, every
 * other one public, round-robin over `shape.owners` owners of `shape.keysPerOwner` API keys each.
 */
export async function seed(database: TestDatabase, appendArtifacts: number, shape: SpreadShape = noSpread) {
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
  const spread = await seedSpread(deps, runtime.operator, shape)
  await sql`ANALYZE`.execute(database.db)
  return { token: token.secret, publicId, privateId, longHistoryId, appendIds, content, spread }
}

/** One artifact of the spread: its id, whether anyone may read it, and the API keys of its owner. */
export interface SpreadArtifact {
  readonly id: string
  readonly publicView: boolean
  readonly keys: readonly string[]
}

async function seedSpread(deps: Runtime['deps'], operator: Runtime['operator'], shape: SpreadShape): Promise<SpreadArtifact[]> {
  const owners: { caller: Caller; username: string; keys: string[] }[] = []
  for (let o = 0; o < shape.owners; o++) {
    const keys: string[] = []
    let username = ''
    for (let k = 0; k < shape.keysPerOwner; k++) {
      const token = await issueOperatorToken(operator, { email: `spread-${o}@example.com`, name: `key ${k}` })
      keys.push(token.secret)
      username = token.user.username
    }
    const caller: Caller = { credential: { secretHash: await sha256Hex(keys[0] ?? '') }, surface: 'api' }
    const project = await createProject(deps, caller, { ownerUsername: username, slug: 'spread', title: 'Spread', icon: 's' })
    if (!project.ok) throw new Error(project.error.message)
    owners.push({ caller, username, keys })
  }
  const artifacts: SpreadArtifact[] = []
  for (let i = 0; i < shape.artifacts; i++) {
    const owner = owners[i % owners.length]
    if (!owner) throw new Error('the spread needs at least one owner')
    const publicView = i % 2 === 0
    const made = await createArtifact(deps, owner.caller, {
      ownerUsername: owner.username,
      projectSlug: 'spread',
      slug: `doc-${i}`,
      type: 'md',
      title: `Document ${i}`,
      content: spreadContent(i),
      changelog: '',
      access: { publicView, publicEdit: false },
    })
    if (!made.ok) throw new Error(made.error.message)
    const id = made.value.value.id
    // Version 2 has the same size and its own text, so "latest" and "pinned 1" read different rows.
    const next = await appendVersion(deps, owner.caller, id, { content: spreadContent(i + shape.artifacts), expectedLatestVersion: 1 })
    if (!next.ok) throw new Error(next.error.message)
    artifacts.push({ id, publicView, keys: owner.keys })
  }
  return artifacts
}
