import { type Static, Type } from 'typebox'
import { Email, Slug, Timestamp, WorkspaceId } from './common.ts'

/** An owner namespace's plan; it sets how long the audit trail is kept (SPEC "Limits"). */
export const plans = ['free', 'pro', 'team'] as const
const planDescription = 'free (audit kept 7 days), pro (90 days) or team (365 days).'
export const PlanSchema = Type.Enum(plans, { description: planDescription })
export type Plan = Static<typeof PlanSchema>

/** The signed-in caller's own account. */
export const Profile = Type.Object({
  id: Type.String({ description: 'User identifier (`usr_…`).' }),
  email: { ...Email, description: 'The email address the account signed in with.' },
  emailVerified: Type.Boolean({
    description: 'Whether the sign-in provider verified the email; invitations and viewer allowlists match verified emails only.',
  }),
  username: Type.String({ description: "The user's name, which is also the slug of their personal workspace." }),
  personalWorkspaceId: { ...WorkspaceId, description: 'The personal workspace (its slug is the username).' },
  plan: { ...PlanSchema, description: `The personal workspace's plan: ${planDescription}` },
  createdAt: { ...Timestamp, description: 'When the account was created.' },
})
export type Profile = Static<typeof Profile>

export const UpdateProfileBody = Type.Object(
  { username: { ...Slug, description: 'The new username; it renames the personal workspace (and the URLs under it).' } },
  { additionalProperties: false },
)
export type UpdateProfileBody = Static<typeof UpdateProfileBody>
