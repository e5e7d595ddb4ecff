import type { ArtifactStore } from '@quire/core'
import type { Kysely } from 'kysely'
import type { RawQuery } from '../database.ts'
import type { Database } from '../schema.ts'
import {
  artifactSlugTaken,
  listArtifactsForUser,
  listArtifactsForWorkspace,
  listVersions,
  loadArtifactForCaller,
  pathReads,
  versionContents,
} from './artifact-reads.ts'
import { appendVersion, createArtifact, softDeleteArtifact, updateArtifactAccess } from './artifact-writes.ts'
import type { ImmutableCache } from './immutable-cache.ts'
import { callerReads, loadContentForCaller, loadVersionForCaller } from './version-reads.ts'

export function artifactStore(database: { readonly db: Kysely<Database>; readonly query: RawQuery }, cache: ImmutableCache): ArtifactStore {
  const { db } = database
  const reads = callerReads(database.query)
  const paths = pathReads(db, database.query)
  return {
    loadForCaller: (query) => loadArtifactForCaller(db, paths, query),
    loadVersionForCaller: (query) => loadVersionForCaller(db, reads, cache, query),
    loadContentForCaller: (query) => loadContentForCaller(db, reads, cache, query),
    create: (cmd) => createArtifact(db, cache, cmd),
    append: (cmd) => appendVersion(db, cache, cmd),
    softDelete: (cmd) => softDeleteArtifact(db, cmd),
    updateAccess: (cmd) => updateArtifactAccess(db, cmd),
    listForUser: (userId, page) => listArtifactsForUser(db, userId, page),
    listForWorkspace: (scope, page) => listArtifactsForWorkspace(db, scope, page),
    listVersions: (artifactId, page) => listVersions(db, artifactId, page),
    contents: (artifactId, numbers) => versionContents(db, cache, artifactId, numbers),
    slugTaken: (projectId, slug) => artifactSlugTaken(db, projectId, slug),
  }
}
