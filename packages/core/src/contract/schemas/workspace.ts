import { type Static, Type } from 'typebox'
import { PlanSchema } from './account.ts'
import { ActorRef, Email, Id, PathSegment, Slug, Text, Timestamp, WorkspaceId } from './common.ts'

export const RoleSchema = Type.Enum(['owner', 'admin', 'member'], {
  description: 'owner and admin manage the workspace (invitations, access, sharing, deletion); member reads and writes content.',
})

/** A workspace the caller belongs to, with the caller's role in it. */
export const Workspace = Type.Object({
  id: WorkspaceId,
  slug: Type.String({ description: 'The owner namespace in URLs (a username for a personal workspace).' }),
  name: Type.String(),
  kind: Type.Enum(['personal', 'team']),
  plan: PlanSchema,
  role: RoleSchema,
  createdAt: Timestamp,
})
export type Workspace = Static<typeof Workspace>

export const CreateWorkspaceBody = Type.Object(
  {
    slug: { ...Slug, description: 'The owner namespace in URLs; shares one namespace with usernames.' },
    name: Text({ minLength: 1, maxLength: 100, description: 'A display name.' }),
  },
  { additionalProperties: false },
)
export type CreateWorkspaceBody = Static<typeof CreateWorkspaceBody>

export const WorkspaceParams = Type.Object({ workspaceId: PathSegment }, { additionalProperties: false })
export type WorkspaceParams = Static<typeof WorkspaceParams>

export const Member = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  email: Email,
  role: RoleSchema,
  joinedAt: Timestamp,
})
export type Member = Static<typeof Member>

export const InvitationId = Id('inv', 'Workspace invitation identifier.')

export const InvitationRole = Type.Enum(['member', 'admin'], { description: 'The role the invitee gets on accepting (default member).' })

export const CreateInvitationBody = Type.Object({ email: Email, role: Type.Optional(InvitationRole) }, { additionalProperties: false })
export type CreateInvitationBody = Static<typeof CreateInvitationBody>

export const InvitationStatus = Type.Enum(['pending', 'accepted', 'revoked', 'expired'])

export const Invitation = Type.Object({
  id: InvitationId,
  workspaceId: WorkspaceId,
  workspaceSlug: Type.String(),
  email: Email,
  role: InvitationRole,
  status: InvitationStatus,
  createdAt: Timestamp,
  createdBy: ActorRef,
  expiresAt: Timestamp,
  acceptedAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
})
export type Invitation = Static<typeof Invitation>

export const InvitationParams = Type.Object({ invitationId: PathSegment }, { additionalProperties: false })
export type InvitationParams = Static<typeof InvitationParams>
