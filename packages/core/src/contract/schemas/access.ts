import { type Static, Type } from 'typebox'
import { ArtifactId, Email, Timestamp } from './common.ts'

/** The most emails an allowlist may hold. */
export const MAX_VIEWER_EMAILS = 100

export const ViewerEmails = Type.Array(Email, {
  maxItems: MAX_VIEWER_EMAILS,
  description: `Signed-in users with these verified emails may view a private artifact (at most ${MAX_VIEWER_EMAILS}, no duplicates).`,
})

/** An artifact's access settings as stored and returned. */
export const ArtifactAccessSettings = Type.Object({
  artifactId: ArtifactId,
  publicView: Type.Boolean({ description: 'Anyone, signed in or not, can read the artifact, its versions, content and diffs.' }),
  publicEdit: Type.Boolean({ description: 'Any authenticated caller can append versions. Anonymous callers never write.' }),
  viewerEmails: Type.Array(Type.String(), {
    description: 'Signed-in users with these verified emails may view the artifact while it is private (lowercase).',
  }),
  updatedAt: { ...Timestamp, description: 'When the artifact last changed (its settings or a new version).' },
})
export type ArtifactAccessSettings = Static<typeof ArtifactAccessSettings>

/** A partial change: fields left out keep their value. */
export const UpdateAccessBody = Type.Object(
  {
    publicView: Type.Optional(
      Type.Boolean({
        description: 'Anyone, signed in or not, can read the artifact, its versions, content and diffs. Left out: unchanged.',
      }),
    ),
    publicEdit: Type.Optional(Type.Boolean({ description: 'Any authenticated caller can append versions. Left out: unchanged.' })),
    viewerEmails: Type.Optional({
      ...ViewerEmails,
      description: `Replaces the whole allowlist of verified emails that may view a private artifact (at most ${MAX_VIEWER_EMAILS}, no duplicates, compared case-insensitively). Left out: unchanged.`,
    }),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'The access settings to change, at least one: the switches given change, `viewerEmails` replaces the whole list.',
  },
)
export type UpdateAccessBody = Static<typeof UpdateAccessBody>

/** The three access settings, without the artifact they belong to (a dry run's before and after). */
export const AccessSwitches = Type.Pick(ArtifactAccessSettings, ['publicView', 'publicEdit', 'viewerEmails'])

/** What `PATCH …/access?dryRun=true` answers: the settings now, the ones the change would leave, and which fields differ. */
export const AccessDryRun = Type.Object({
  dryRun: Type.Literal(true, { description: 'Nothing was written.' }),
  artifactId: ArtifactId,
  current: { ...AccessSwitches, description: 'The settings now.' },
  wouldBe: { ...AccessSwitches, description: 'The settings the change would leave.' },
  changed: Type.Array(Type.Union([Type.Literal('publicView'), Type.Literal('publicEdit'), Type.Literal('viewerEmails')]), {
    description: 'The fields whose value would change (empty when the change is a no-op).',
  }),
})
export type AccessDryRun = Static<typeof AccessDryRun>
