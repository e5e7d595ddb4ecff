import { type Static, Type } from 'typebox'
import { ArtifactIdParam, ArtifactTypeSchema, Changelog, Content } from './artifact.ts'
import { ActorRef, ArtifactId, Timestamp } from './common.ts'

export const VersionNumber = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Version number, from 1.' })

export const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the UTF-8 content, hex.' })

export const AppendVersionBody = Type.Object(
  {
    content: Content,
    changelog: Type.Optional({ ...Changelog, description: 'A note on this version; empty when left out.' }),
    expectedLatestVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        description: 'The latest version the caller expects. Required: without it the service answers 428.',
      }),
    ),
  },
  { additionalProperties: false },
)
export type AppendVersionBody = Static<typeof AppendVersionBody>

export const RestoreVersionBody = Type.Object(
  {
    changelog: Type.Optional({ ...Changelog, description: 'A note on the new version; `Restored version N` when left out.' }),
    expectedLatestVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        description: 'The latest version the caller expects; when given and the artifact has moved on, nothing is written (409).',
      }),
    ),
  },
  { additionalProperties: false },
)
export type RestoreVersionBody = Static<typeof RestoreVersionBody>

export const VersionParams = Type.Object(
  { artifactId: ArtifactIdParam, versionNumber: { ...VersionNumber, description: 'The version to restore (from 1).' } },
  { additionalProperties: false },
)
export type VersionParams = Static<typeof VersionParams>

export const Version = Type.Object({
  artifactId: ArtifactId,
  versionNumber: VersionNumber,
  sha256: Sha256,
  size: Type.Integer({ description: 'Content size in bytes (UTF-8).' }),
  changelog: Type.String({ description: 'The note given with this version (may be empty).' }),
  restoredFrom: Type.Union([VersionNumber, Type.Null()], { description: 'Set when this version restores an older one.' }),
  createdAt: { ...Timestamp, description: 'When the version was created.' },
  createdBy: { ...ActorRef, description: 'Who created the version.' },
})
export type Version = Static<typeof Version>

export const ContentQuery = Type.Object(
  { version: Type.Optional({ ...VersionNumber, description: 'The version to read (from 1); the latest when left out.' }) },
  { additionalProperties: false },
)
export type ContentQuery = Static<typeof ContentQuery>

export const VersionContent = Type.Object({
  artifactId: ArtifactId,
  versionNumber: VersionNumber,
  type: ArtifactTypeSchema,
  sha256: Sha256,
  size: Type.Integer({ description: 'Content size in bytes (UTF-8).' }),
  content: { ...Content, description: 'Source text of the version.' },
  createdAt: { ...Timestamp, description: 'When the version was created.' },
})
export type VersionContent = Static<typeof VersionContent>

export const DiffQuery = Type.Object(
  {
    from: { ...VersionNumber, description: 'The version to diff from (the old side).' },
    to: { ...VersionNumber, description: 'The version to diff to (the new side).' },
  },
  { additionalProperties: false },
)
export type DiffQuery = Static<typeof DiffQuery>

export const VersionDiff = Type.Object({
  artifactId: ArtifactId,
  fromVersion: { ...VersionNumber, description: 'The old side of the diff.' },
  toVersion: { ...VersionNumber, description: 'The new side of the diff.' },
  diff: Type.String({ description: 'Unified diff from `fromVersion` to `toVersion`; empty when identical.' }),
  additions: Type.Integer({ description: 'Lines added.' }),
  deletions: Type.Integer({ description: 'Lines removed.' }),
})
export type VersionDiff = Static<typeof VersionDiff>
