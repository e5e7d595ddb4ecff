import { type Static, Type } from 'typebox'
import { AccessSwitches, ViewerEmails } from './access.ts'
import { ActorRef, ArtifactId, AvailabilityReason, PathSegment, Sha256, Slug, SlugSuggestions, Text, Timestamp } from './common.ts'

/** Allowed artifact types. Only `md` is rendered; the rest are stored and served as text. */
export const artifactTypes = ['md', 'txt', 'html', 'json', 'yaml', 'csv', 'mermaid', 'svg'] as const
export type ArtifactType = (typeof artifactTypes)[number]
export const ArtifactTypeSchema = Type.Enum(artifactTypes, {
  description: 'Document type: md, txt, html, json, yaml, csv, mermaid or svg.',
})

export const Title = Text({ minLength: 1, maxLength: 200, description: 'A display title, 1–200 characters.' })
export const Description = Text({ maxLength: 2000, description: 'A longer description, at most 2000 characters; empty when left out.' })

/** The namespace an artifact or project lives under, as given on create. */
export const OwnerUsername = { ...Slug, description: 'The owner namespace: a username or a team workspace slug.' }
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

/** The query of `createArtifact`: `dryRun=true` checks everything the create checks and writes nothing. */
export const CreateArtifactQuery = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          "Check everything the create checks (credential, access, scopes, the access settings, the project, limits, the body, and that the slug is free) and answer with what it would create, writing nothing (no artifact, no version, no audit event, no Idempotency-Key stored). Errors are the create's own: a taken slug is the same 409 `slug_taken`, with `suggestions`.",
      }),
    ),
  },
  { additionalProperties: false },
)
export type CreateArtifactQuery = Static<typeof CreateArtifactQuery>

export const CreateArtifactBody = Type.Object(
  {
    ownerUsername: OwnerUsername,
    projectSlug: { ...Slug, description: 'An existing project of the owner.' },
    slug: {
      ...Slug,
      description: 'The artifact slug, unique within the project: lowercase letters, digits and inner hyphens; 1–64 characters.',
    },
    type: ArtifactTypeSchema,
    title: Title,
    description: Type.Optional(Description),
    content: { ...Content, description: 'Source text of the first version (at most 1 MiB of UTF-8 by default).' },
    changelog: { ...Changelog, description: 'A note on the first version (may be empty).' },
    access: Type.Object(
      {
        publicView: Type.Boolean({ description: 'Anyone, signed in or not, can view.' }),
        publicEdit: Type.Boolean({ description: 'Any authenticated caller can append versions.' }),
        viewerEmails: Type.Optional(ViewerEmails),
      },
      { additionalProperties: false, description: 'Who may view and edit the artifact (changeable later).' },
    ),
  },
  { additionalProperties: false },
)
export type CreateArtifactBody = Static<typeof CreateArtifactBody>

export const Artifact = Type.Object({
  id: ArtifactId,
  ownerUsername: Type.String({ description: 'The owner namespace: a username or a team workspace slug.' }),
  projectSlug: Type.String({ description: 'The project the artifact lives in.' }),
  slug: Type.String({ description: 'The artifact slug within the project.' }),
  type: ArtifactTypeSchema,
  title: Type.String({ description: 'The display title.' }),
  description: Type.String({ description: 'A longer description; empty when none was given.' }),
  access: { ...Visibility, description: 'The two access switches (the viewer allowlist is part of the access settings).' },
  latestVersion: Type.Integer({ minimum: 1, description: 'The number of the head version.' }),
  url: Type.String({ description: 'Where the artifact is shown on the web app.' }),
  createdAt: { ...Timestamp, description: 'When the artifact was created.' },
  updatedAt: { ...Timestamp, description: 'When the artifact last changed (a new version or new access settings).' },
  createdBy: { ...ActorRef, description: 'Who created the artifact.' },
})
export type Artifact = Static<typeof Artifact>

/** An artifact read (`GET /api/artifacts/:id`, resolving a path): the artifact, and where its latest version opens rendered. */
export const ArtifactRead = Type.Object({
  ...Artifact.properties,
  previewUrl: Type.Union([Type.String(), Type.Null()], {
    description:
      'The latest version rendered on the content origin (HTML, SVG, Mermaid), minted for the caller: a link that opens the document as its author meant, for anyone who has it, until `previewExpiresAt` (at most ten minutes). Null for the types the page at `url` shows as they are (Markdown, text, CSV, JSON, YAML), or when the server renders none (no CONTENT_URL).',
  }),
  previewExpiresAt: Type.Union([{ ...Timestamp }, Type.Null()], { description: 'When `previewUrl` stops working; null with it.' }),
})
export type ArtifactRead = Static<typeof ArtifactRead>

/** What `POST /api/artifacts?dryRun=true` answers: the artifact and first version the create would make. */
export const ArtifactDryRun = Type.Object({
  dryRun: Type.Literal(true, { description: 'Nothing was written.' }),
  wouldCreate: Type.Object(
    {
      ownerUsername: Type.String({ description: 'The owner namespace the artifact would live under.' }),
      projectSlug: Type.String({ description: 'The project it would live in.' }),
      slug: Type.String({ description: 'Its slug within the project (free when asked).' }),
      url: Type.String({ description: 'Where it would be shown on the web app.' }),
      type: ArtifactTypeSchema,
      title: Type.String({ description: 'The display title it would have.' }),
      description: Type.String({ description: 'The description it would have; empty when none was given.' }),
      versionNumber: Type.Literal(1, { description: 'The number of the first version: always 1.' }),
      sha256: { ...Sha256, description: "SHA-256 of the first version's content (UTF-8), hex." },
      size: Type.Integer({ minimum: 0, description: "Size of the first version's content in bytes (UTF-8)." }),
      changelog: Type.String({ description: 'The note the first version would carry.' }),
      access: {
        ...AccessSwitches,
        description: 'The access settings it would have, the viewer allowlist as it would be stored (lowercase, no duplicates).',
      },
    },
    { description: 'The artifact and first version the create would make.' },
  ),
})
export type ArtifactDryRun = Static<typeof ArtifactDryRun>

/** The path parameter naming an artifact by id. */
export const ArtifactIdParam = { ...PathSegment, description: 'Artifact identifier (`art_…`).' }

export const ArtifactParams = Type.Object({ artifactId: ArtifactIdParam }, { additionalProperties: false })
export type ArtifactParams = Static<typeof ArtifactParams>

export const DeletedArtifact = Type.Object({
  id: ArtifactId,
  deletedAt: { ...Timestamp, description: 'When the artifact was soft-deleted.' },
})
export type DeletedArtifact = Static<typeof DeletedArtifact>

export const ArtifactPathParams = Type.Object(
  {
    owner: { ...PathSegment, description: 'The owner namespace: a username or a team workspace slug.' },
    projectSlug: { ...PathSegment, description: 'The project slug within the owner.' },
    slug: { ...PathSegment, description: 'The artifact slug within the project.' },
  },
  { additionalProperties: false },
)
export type ArtifactPathParams = Static<typeof ArtifactPathParams>

const availability = {
  ownerUsername: Type.String({ description: 'The owner namespace asked about.' }),
  projectSlug: Type.String({ description: 'The project asked about.' }),
  slug: Type.String({ description: 'The artifact slug asked about.' }),
  available: Type.Boolean({ description: 'True when the slug is valid and no artifact of the project has it.' }),
  reason: Type.Optional(AvailabilityReason),
  suggestions: Type.Optional(SlugSuggestions),
}

export const ArtifactSlugAvailability = Type.Object(availability)
export type ArtifactSlugAvailability = Static<typeof ArtifactSlugAvailability>

export const SlugPreview = Type.Object({
  url: Type.String({ description: 'The URL the artifact would have on the web app.' }),
  ...availability,
})
export type SlugPreview = Static<typeof SlugPreview>
