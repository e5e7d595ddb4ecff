import { type Static, Type } from 'typebox'
import { ActorRef, ArtifactId, PathSegment, Timestamp } from './common.ts'

export const ShareLinkRole = Type.Union([Type.Literal('viewer'), Type.Literal('editor')], {
  description: '`viewer` reads metadata, content, versions and diffs; `editor` also appends and restores.',
})
export type ShareLinkRole = Static<typeof ShareLinkRole>

export const ShareLinkId = Type.String({ pattern: '^shl_[0-9a-z]{26}$', description: 'Share link identifier.' })

export const CreateShareLinkBody = Type.Object(
  {
    role: Type.Optional({
      ...ShareLinkRole,
      default: 'viewer',
      description:
        'The role the link grants (default `viewer`): `viewer` reads; `editor` also appends and restores versions, so only a creator who may append (`artifacts:update`) makes one.',
    }),
    expiresAt: Type.Optional({
      ...Timestamp,
      description: 'When the link stops working: ISO 8601 UTC with milliseconds, in the future and at most a year ahead.',
    }),
  },
  { additionalProperties: false },
)
export type CreateShareLinkBody = Static<typeof CreateShareLinkBody>

export const ShareLinkStatus = Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')], {
  description: 'active, revoked, or expired (past `expiresAt`).',
})

/** A share link as listed: never its secret. */
export const ShareLink = Type.Object({
  id: ShareLinkId,
  artifactId: ArtifactId,
  role: ShareLinkRole,
  status: ShareLinkStatus,
  prefix: Type.String({ description: 'The first characters of the secret, to tell links apart.' }),
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When the link stops working; null if it never expires.' }),
  revokedAt: Type.Union([Timestamp, Type.Null()], { description: 'When the link was revoked; null unless revoked.' }),
  createdAt: { ...Timestamp, description: 'When the link was created.' },
  createdBy: Type.Union([ActorRef, Type.Null()], { description: 'Who created the link; null when not recorded.' }),
})
export type ShareLink = Static<typeof ShareLink>

/** The answer to creating a link: the only time its secret is shown. */
export const CreatedShareLink = Type.Object({
  ...ShareLink.properties,
  secret: Type.Union([Type.String(), Type.Null()], {
    description:
      "The link secret, also a bearer token for this artifact. Shown once; Quire keeps only its SHA-256. Null when this answer replays an earlier request with the same `Idempotency-Key` (then `notice` says so, and `status` is the link's status now).",
  }),
  url: Type.Union([Type.String(), Type.Null()], {
    description: 'Opens the artifact on the web app with the link role (it holds the secret: null when `secret` is).',
  }),
  notice: Type.Optional(Type.String({ description: 'Set on a replay: why `secret` and `url` are null.' })),
})
export type CreatedShareLink = Static<typeof CreatedShareLink>

export const ShareLinkParams = Type.Object(
  { shareLinkId: { ...PathSegment, description: 'Share link identifier (`shl_…`).' } },
  { additionalProperties: false },
)
