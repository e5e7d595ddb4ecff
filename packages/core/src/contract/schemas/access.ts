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
  viewerEmails: Type.Array(Type.String()),
  updatedAt: Timestamp,
})
export type ArtifactAccessSettings = Static<typeof ArtifactAccessSettings>

/** A partial change: fields left out keep their value. */
export const UpdateAccessBody = Type.Object(
  {
    publicView: Type.Optional(Type.Boolean()),
    publicEdit: Type.Optional(Type.Boolean()),
    viewerEmails: Type.Optional(ViewerEmails),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateAccessBody = Static<typeof UpdateAccessBody>
