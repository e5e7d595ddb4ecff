import type { ArtifactStore } from '@quire/core'
import type { Kysely } from 'kysely'
import type { Database } from '../schema.ts'
import { artifactSlugTaken, listArtifactsForUser, listVersions, loadArtifactForCaller, versionContents } from './artifact-reads.ts'
import { appendVersion, createArtifact, softDeleteArtifact } from './artifact-writes.ts'

export function artifactStore(db: Kysely<Database>): ArtifactStore {
  return {
    loadForCaller: (query) => loadArtifactForCaller(db, query),
    create: (cmd) => createArtifact(db, cmd),
    append: (cmd) => appendVersion(db, cmd),
    softDelete: (cmd) => softDeleteArtifact(db, cmd),
    listForUser: (userId, page) => listArtifactsForUser(db, userId, page),
    listVersions: (artifactId, page) => listVersions(db, artifactId, page),
    contents: (artifactId, numbers) => versionContents(db, artifactId, numbers),
    slugTaken: (projectId, slug) => artifactSlugTaken(db, projectId, slug),
  }
}
