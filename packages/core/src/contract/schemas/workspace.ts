import { type Static, Type } from 'typebox'
import { PlanSchema } from './account.ts'
import { ActorRef, Email, Id, PathSegment, Slug, Text, Timestamp, WorkspaceId } from './common.ts'

const roleDescription = 'owner and admin manage the workspace (invitations, access, sharing, deletion); member reads and writes content.'
export const RoleSchema = Type.Enum(['owner', 'admin', 'member'], { description: roleDescription })

/** A workspace the caller belongs to, with the caller's role in it. */
export const Workspace = Type.Object({
  id: WorkspaceId,
  slug: Type.String({ description: 'The owner namespace in URLs (a username for a personal workspace).' }),
  name: Type.String({ description: 'The display name.' }),
  kind: Type.Enum(['personal', 'team'], { description: "personal (every user's own, named after the username) or team." }),
  plan: PlanSchema,
  role: { ...RoleSchema, description: `The caller's role in the workspace: ${roleDescription}` },
  createdAt: { ...Timestamp, description: 'When the workspace was created.' },
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

export const WorkspaceParams = Type.Object(
  { workspaceId: { ...PathSegment, description: 'Workspace identifier (`ws_…`).' } },
  { additionalProperties: false },
)
export type WorkspaceParams = Static<typeof WorkspaceParams>

export const Member = Type.Object({
  userId: Type.String({ description: 'User identifier (`usr_…`).' }),
  username: Type.String({ description: "The member's username." }),
  email: { ...Email, description: "The member's email address." },
  role: RoleSchema,
  joinedAt: { ...Timestamp, description: 'When the member joined the workspace.' },
})
export type Member = Static<typeof Member>

export const InvitationId = Id('inv', 'Workspace invitation identifier.')

export const InvitationRole = Type.Enum(['member', 'admin'], { description: 'The role the invitee gets on accepting (default member).' })

export const CreateInvitationBody = Type.Object(
  {
    email: { ...Email, description: 'Who is invited: a signed-in user with this verified email can accept.' },
    role: Type.Optional(InvitationRole),
  },
  { additionalProperties: false },
)
export type CreateInvitationBody = Static<typeof CreateInvitationBody>

export const InvitationStatus = Type.Enum(['pending', 'accepted', 'revoked', 'expired'], {
  description: 'pending (can be accepted), accepted, revoked, or expired (past `expiresAt`).',
})

export const Invitation = Type.Object({
  id: InvitationId,
  workspaceId: { ...WorkspaceId, description: 'The workspace the invitation is to.' },
  workspaceSlug: Type.String({ description: "The workspace's slug (its owner namespace in URLs)." }),
  email: { ...Email, description: 'The invited email: only a signed-in user with this verified email can accept.' },
  role: { ...InvitationRole, description: 'The role the invitee gets on accepting.' },
  status: InvitationStatus,
  createdAt: { ...Timestamp, description: 'When the invitation was made.' },
  createdBy: { ...ActorRef, description: 'Who made the invitation.' },
  expiresAt: { ...Timestamp, description: 'When the invitation expires unless accepted (14 days after it was made).' },
  acceptedAt: Type.Union([Timestamp, Type.Null()], { description: 'When it was accepted; null unless accepted.' }),
  revokedAt: Type.Union([Timestamp, Type.Null()], { description: 'When it was revoked; null unless revoked.' }),
})
export type Invitation = Static<typeof Invitation>

export const InvitationParams = Type.Object(
  { invitationId: { ...PathSegment, description: 'Invitation identifier (`inv_…`).' } },
  { additionalProperties: false },
)
export type InvitationParams = Static<typeof InvitationParams>
