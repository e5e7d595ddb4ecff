import { type Static, Type } from 'typebox'
import { ViewerEmails } from './access.ts'
import { ActorRef, ArtifactId, AvailabilityReason, PathSegment, Slug, Text, Timestamp } from './common.ts'

/** Allowed artifact types. Only `md` is rendered; the rest are stored and served as text. */
export const artifactTypes = ['md', 'txt', 'html', 'json', 'yaml', 'csv', 'mermaid', 'svg'] as const
export type ArtifactType = (typeof artifactTypes)[number]
export const ArtifactTypeSchema = Type.Enum(artifactTypes, {
  description: 'Document type: md, txt, html, json, yaml, csv, mermaid or svg.',
})

export const Title = Text({ minLength: 1, maxLength: 200 })
export const Description = Text({ maxLength: 2000 })
export const Changelog = Text({ maxLength: 2000, description: 'A note on this version.' })
export const Content = Text({ description: 'Source text of the version (at most 1 MiB of UTF-8 by default).' })

/** The two switches carried on create and shown on every artifact. */
export const Visibility = Type.Object(
  {
    publicView: Type.Boolean({ description: 'Anyone with the URL can view.' }),
    publicEdit: Type.Boolean({ description: 'Any authenticated caller can append versions.' }),
  },
  { additionalProperties: false },
)
export type Visibility = Static<typeof Visibility>

export const CreateArtifactBody = Type.Object(
  {
    ownerUsername: Slug,
    projectSlug: Slug,
    slug: Slug,
    type: ArtifactTypeSchema,
    title: Title,
    description: Type.Optional(Description),
    content: Content,
    changelog: Changelog,
    access: Type.Object(
      {
        publicView: Type.Boolean(),
        publicEdit: Type.Boolean(),
        viewerEmails: Type.Optional(ViewerEmails),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
export type CreateArtifactBody = Static<typeof CreateArtifactBody>

export const Artifact = Type.Object({
  id: ArtifactId,
  ownerUsername: Type.String(),
  projectSlug: Type.String(),
  slug: Type.String(),
  type: ArtifactTypeSchema,
  title: Type.String(),
  description: Type.String(),
  access: Visibility,
  latestVersion: Type.Integer({ minimum: 1 }),
  url: Type.String({ description: 'Where the artifact is shown on the web app.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  createdBy: ActorRef,
})
export type Artifact = Static<typeof Artifact>

export const ArtifactParams = Type.Object({ artifactId: PathSegment }, { additionalProperties: false })
export type ArtifactParams = Static<typeof ArtifactParams>

export const DeletedArtifact = Type.Object({ id: ArtifactId, deletedAt: Timestamp })
export type DeletedArtifact = Static<typeof DeletedArtifact>

export const ArtifactPathParams = Type.Object(
  { owner: PathSegment, projectSlug: PathSegment, slug: PathSegment },
  { additionalProperties: false },
)
export type ArtifactPathParams = Static<typeof ArtifactPathParams>

export const ArtifactSlugAvailability = Type.Object({
  ownerUsername: Type.String(),
  projectSlug: Type.String(),
  slug: Type.String(),
  available: Type.Boolean(),
  reason: Type.Optional(AvailabilityReason),
})
export type ArtifactSlugAvailability = Static<typeof ArtifactSlugAvailability>

export const SlugPreview = Type.Object({
  url: Type.String({ description: 'The URL the artifact would have on the web app.' }),
  ownerUsername: Type.String(),
  projectSlug: Type.String(),
  slug: Type.String(),
  available: Type.Boolean(),
  reason: Type.Optional(AvailabilityReason),
})
export type SlugPreview = Static<typeof SlugPreview>
