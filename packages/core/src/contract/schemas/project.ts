import { type Static, Type } from 'typebox'
import { Description, Title } from './artifact.ts'
import { ActorRef, AvailabilityReason, PathSegment, ProjectId, Slug, Text, Timestamp, WorkspaceId } from './common.ts'

export const Icon = Text({ minLength: 1, maxLength: 16, description: 'A short symbol, e.g. an emoji.' })

export const CreateProjectBody = Type.Object(
  { ownerUsername: Slug, slug: Slug, title: Title, description: Type.Optional(Description), icon: Icon },
  { additionalProperties: false },
)
export type CreateProjectBody = Static<typeof CreateProjectBody>

export const Project = Type.Object({
  id: ProjectId,
  workspaceId: WorkspaceId,
  ownerUsername: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  url: Type.String(),
  createdAt: Timestamp,
  createdBy: ActorRef,
})
export type Project = Static<typeof Project>

export const ProjectSlugParams = Type.Object({ owner: PathSegment, slug: PathSegment }, { additionalProperties: false })
export type ProjectSlugParams = Static<typeof ProjectSlugParams>

export const ProjectPathParams = Type.Object({ owner: PathSegment, projectSlug: PathSegment }, { additionalProperties: false })
export type ProjectPathParams = Static<typeof ProjectPathParams>

export const ProjectSlugAvailability = Type.Object({
  ownerUsername: Type.String(),
  slug: Type.String(),
  available: Type.Boolean(),
  reason: Type.Optional(AvailabilityReason),
})
export type ProjectSlugAvailability = Static<typeof ProjectSlugAvailability>
