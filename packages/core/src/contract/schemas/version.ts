import { type Static, Type } from 'typebox'
import { ArtifactIdParam, ArtifactTypeSchema, Changelog, Content } from './artifact.ts'
import { ActorRef, ArtifactId, Cursor, Limit, Page, Sha256, Timestamp } from './common.ts'

/** The highest version number: the database column is a 32-bit integer. */
export const MAX_VERSION_NUMBER = 2147483647

export const VersionNumber = Type.Integer({ minimum: 1, maximum: MAX_VERSION_NUMBER, description: 'Version number, from 1.' })

/**
 * The latest version a write expects: one below the highest version number, since the write
 * appends the version after it.
 */
const ExpectedLatestVersion = Type.Integer({ minimum: 1, maximum: MAX_VERSION_NUMBER - 1 })

export const AppendVersionBody = Type.Object(
  {
    content: Content,
    changelog: Type.Optional({ ...Changelog, description: 'A note on this version; empty when left out.' }),
    expectedLatestVersion: Type.Optional({
      ...ExpectedLatestVersion,
      description: 'The latest version the caller expects. Required: without it the service answers 428.',
    }),
  },
  { additionalProperties: false },
)
export type AppendVersionBody = Static<typeof AppendVersionBody>

export const RestoreVersionBody = Type.Object(
  {
    changelog: Type.Optional({ ...Changelog, description: 'A note on the new version; `Restored version N` when left out.' }),
    expectedLatestVersion: Type.Optional({
      ...ExpectedLatestVersion,
      description: 'The latest version the caller expects; when given and the artifact has moved on, nothing is written (409).',
    }),
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

/** The size of a unified diff, in lines. */
const DiffCounts = {
  additions: Type.Integer({ description: 'Lines added.' }),
  deletions: Type.Integer({ description: 'Lines removed.' }),
}

export const VersionDiff = Type.Object({
  artifactId: ArtifactId,
  fromVersion: { ...VersionNumber, description: 'The old side of the diff.' },
  toVersion: { ...VersionNumber, description: 'The new side of the diff.' },
  diff: Type.String({ description: 'Unified diff from `fromVersion` to `toVersion`; empty when identical.' }),
  ...DiffCounts,
})
export type VersionDiff = Static<typeof VersionDiff>

/**
 * The most unified diff a catch-up answer carries, in bytes of UTF-8: 256 KiB (the MCP content
 * window's size). A longer diff is cut at a line boundary and `diffTruncated` says so.
 */
export const CHANGES_DIFF_MAX_BYTES = 256 * 1024

export const ChangesQuery = Type.Object(
  {
    since: { ...VersionNumber, description: 'The version the caller last saw (from 1): what changed after it is returned.' },
    limit: Type.Optional({ ...Limit, description: 'Versions per page, 1–100 (default 50).' }),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)
export type ChangesQuery = Static<typeof ChangesQuery>

/**
 * What changed after version `since`. `versions` holds the versions after it, newest first, paged
 * like every list (pass `nextCursor` back as `cursor` with the same `since` for older ones).
 */
export const ArtifactChanges = Type.Object({
  artifactId: ArtifactId,
  sinceVersion: { ...VersionNumber, description: 'The `since` asked for: the old side of the diff.' },
  latestVersion: { ...VersionNumber, description: 'The head version now: the new side of the diff.' },
  versions: {
    ...Page(Version),
    description:
      'The versions after `sinceVersion`, newest first, paged like every list: pass `nextCursor` back as `cursor` with the same `since` for older ones.',
  },
  diff: Type.String({
    description: `Unified diff from \`sinceVersion\` to \`latestVersion\`; empty when nothing changed. At most ${CHANGES_DIFF_MAX_BYTES / 1024} KiB: see \`diffTruncated\`.`,
  }),
  additions: Type.Integer({ description: 'Lines added (over the whole diff, truncated or not).' }),
  deletions: Type.Integer({ description: 'Lines removed (over the whole diff, truncated or not).' }),
  diffBytes: Type.Integer({ description: 'Size of the whole diff in bytes of UTF-8.' }),
  diffTruncated: Type.Boolean({
    description:
      'True when the diff was cut (at a line boundary) to fit the cap: get the whole of it from the diff operation (`GET /api/artifacts/{artifactId}/diff?from=sinceVersion&to=latestVersion`), or narrower ranges of it.',
  }),
})
export type ArtifactChanges = Static<typeof ArtifactChanges>

/** `?dryRun=true` on a write: every check runs, nothing is written, and the answer says what would have been. */
export const DryRunQuery = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          "Check everything the write checks (credential, access, scopes, expectedLatestVersion, limits, the body) and answer with what it would do, writing nothing (no version, no audit event, no Idempotency-Key stored). Errors are the write's own.",
      }),
    ),
  },
  { additionalProperties: false },
)
export type DryRunQuery = Static<typeof DryRunQuery>

/**
 * Said instead of a diff when the caller may write the artifact but not read its content (a key
 * without `artifacts:read`): a write never shows what a read would not.
 */
export const DiffWithheld = Type.Object(
  {
    detail: Type.String({ description: 'Why the diff is left out, and what would show it.' }),
    scope: Type.Optional(Type.String({ description: 'The scope that reading the content needs, when a scope is what is missing.' })),
  },
  { description: 'Present instead of `diff` when the caller may not read the content: the diff would show it.' },
)
export type DiffWithheld = Static<typeof DiffWithheld>

export const VersionDryRun = Type.Object({
  dryRun: Type.Literal(true, { description: 'Nothing was written.' }),
  artifactId: ArtifactId,
  wouldCreate: Type.Object(
    {
      versionNumber: VersionNumber,
      sha256: Sha256,
      size: Type.Integer({ description: 'Content size in bytes (UTF-8).' }),
      changelog: Type.String({ description: 'The note the version would carry.' }),
      restoredFrom: Type.Union([VersionNumber, Type.Null()], { description: 'Set when the version would restore an older one.' }),
    },
    { description: 'The version the write would append.' },
  ),
  fromVersion: { ...VersionNumber, description: 'The latest version now: the old side of the diff.' },
  diff: Type.Optional(
    Type.String({
      description:
        'Unified diff from the latest version to the content the write would publish; empty when identical. Only for a caller who may read the content (else `diffWithheld`).',
    }),
  ),
  additions: Type.Optional({ ...DiffCounts.additions, description: 'Lines added (with `diff` only).' }),
  deletions: Type.Optional({ ...DiffCounts.deletions, description: 'Lines removed (with `diff` only).' }),
  diffWithheld: Type.Optional(DiffWithheld),
})
export type VersionDryRun = Static<typeof VersionDryRun>
