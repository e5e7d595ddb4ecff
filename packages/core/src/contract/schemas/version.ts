import { type Static, Type } from 'typebox'
import { ArtifactTypeSchema, Changelog, Content } from './artifact.ts'
import { ActorRef, ArtifactId, PathSegment, Timestamp } from './common.ts'

export const VersionNumber = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Version number, from 1.' })

export const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the UTF-8 content, hex.' })

export const AppendVersionBody = Type.Object(
  {
    content: Content,
    changelog: Type.Optional(Changelog),
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
    changelog: Type.Optional(Changelog),
    expectedLatestVersion: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  },
  { additionalProperties: false },
)
export type RestoreVersionBody = Static<typeof RestoreVersionBody>

export const VersionParams = Type.Object({ artifactId: PathSegment, versionNumber: VersionNumber }, { additionalProperties: false })
export type VersionParams = Static<typeof VersionParams>

export const Version = Type.Object({
  artifactId: ArtifactId,
  versionNumber: VersionNumber,
  sha256: Sha256,
  size: Type.Integer({ description: 'Content size in bytes (UTF-8).' }),
  changelog: Type.String(),
  restoredFrom: Type.Union([VersionNumber, Type.Null()], { description: 'Set when this version restores an older one.' }),
  createdAt: Timestamp,
  createdBy: ActorRef,
})
export type Version = Static<typeof Version>

export const ContentQuery = Type.Object({ version: Type.Optional(VersionNumber) }, { additionalProperties: false })
export type ContentQuery = Static<typeof ContentQuery>

export const VersionContent = Type.Object({
  artifactId: ArtifactId,
  versionNumber: VersionNumber,
  type: ArtifactTypeSchema,
  sha256: Sha256,
  size: Type.Integer(),
  content: Content,
  createdAt: Timestamp,
})
export type VersionContent = Static<typeof VersionContent>

export const DiffQuery = Type.Object({ from: VersionNumber, to: VersionNumber }, { additionalProperties: false })
export type DiffQuery = Static<typeof DiffQuery>

export const VersionDiff = Type.Object({
  artifactId: ArtifactId,
  fromVersion: VersionNumber,
  toVersion: VersionNumber,
  diff: Type.String({ description: 'Unified diff from `fromVersion` to `toVersion`; empty when identical.' }),
  additions: Type.Integer(),
  deletions: Type.Integer(),
})
export type VersionDiff = Static<typeof VersionDiff>
