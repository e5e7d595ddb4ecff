import { type Static, Type } from 'typebox'
import { Description, OwnerUsername, Title } from './artifact.ts'
import { ActorRef, AvailabilityReason, PathSegment, ProjectId, Slug, SlugSuggestions, Text, Timestamp, WorkspaceId } from './common.ts'

export const Icon = Text({ minLength: 1, maxLength: 16, description: 'A short symbol, e.g. an emoji (1–16 characters).' })

export const CreateProjectBody = Type.Object(
  {
    ownerUsername: OwnerUsername,
    slug: {
      ...Slug,
      description: 'The project slug, unique within the owner: lowercase letters, digits and inner hyphens; 1–64 characters.',
    },
    title: Title,
    description: Type.Optional(Description),
    icon: Icon,
  },
  { additionalProperties: false },
)
export type CreateProjectBody = Static<typeof CreateProjectBody>

export const Project = Type.Object({
  id: ProjectId,
  workspaceId: { ...WorkspaceId, description: 'The workspace that owns the project.' },
  ownerUsername: Type.String({ description: "The owner namespace: the workspace's slug (a username for a personal workspace)." }),
  slug: Type.String({ description: 'The project slug within the owner.' }),
  title: Type.String({ description: 'The display title.' }),
  description: Type.String({ description: 'A longer description; empty when none was given.' }),
  icon: Type.String({ description: 'A short symbol, e.g. an emoji.' }),
  url: Type.String({ description: 'Where the project is shown on the web app.' }),
  createdAt: { ...Timestamp, description: 'When the project was created.' },
  createdBy: { ...ActorRef, description: 'Who created the project.' },
})
export type Project = Static<typeof Project>

const Owner = { ...PathSegment, description: 'The owner namespace: a username or a team workspace slug.' }

export const ProjectSlugParams = Type.Object(
  { owner: Owner, slug: { ...PathSegment, description: 'The project slug to check.' } },
  { additionalProperties: false },
)
export type ProjectSlugParams = Static<typeof ProjectSlugParams>

export const ProjectPathParams = Type.Object(
  { owner: Owner, projectSlug: { ...PathSegment, description: 'The project slug within the owner.' } },
  { additionalProperties: false },
)
export type ProjectPathParams = Static<typeof ProjectPathParams>

export const ProjectSlugAvailability = Type.Object({
  ownerUsername: Type.String({ description: 'The owner namespace asked about.' }),
  slug: Type.String({ description: 'The project slug asked about.' }),
  available: Type.Boolean({ description: 'True when the slug is valid, not reserved and no project of the owner has it.' }),
  reason: Type.Optional(AvailabilityReason),
  suggestions: Type.Optional(SlugSuggestions),
})
export type ProjectSlugAvailability = Static<typeof ProjectSlugAvailability>
