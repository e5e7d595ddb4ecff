import type { VersionRecord } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import { type Row, versionFrom } from '../rows.ts'
import type { Database } from '../schema.ts'
import { versionColumns } from './fragments.ts'
import type { ImmutableCache } from './immutable-cache.ts'

/** Versions by number: from memory when seen before, the rest in one query (and remembered). */
export async function versionsOf(
  db: Kysely<Database>,
  cache: ImmutableCache,
  artifactId: string,
  numbers: readonly number[],
): Promise<VersionRecord[]> {
  const wanted = [...new Set(numbers)]
  const known: VersionRecord[] = []
  const missing: number[] = []
  for (const n of wanted) {
    const v = cache.version(artifactId, n)
    if (v) known.push(v)
    else missing.push(n)
  }
  if (missing.length === 0) return known
  const { rows } = await sql<Row>`SELECT ${versionColumns} FROM versions v
    WHERE v.artifact_id = ${artifactId}::text AND v.number = ANY(${missing}::int[])`.execute(db)
  for (const row of rows) {
    const v = versionFrom(row)
    if (v) {
      cache.rememberVersion(v)
      known.push(v)
    }
  }
  return known
}

/** Content by SHA-256: from memory when seen before. */
export async function contentBody(db: Kysely<Database>, cache: ImmutableCache, sha256: string): Promise<string> {
  const cached = cache.content(sha256)
  if (cached !== undefined) return cached
  const row = await db.selectFrom('contents').select('body').where('sha256', '=', sha256).executeTakeFirstOrThrow()
  cache.rememberContent(sha256, row.body)
  return row.body
}
