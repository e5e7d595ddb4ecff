import { type Static, Type } from 'typebox'
import { Email, Slug, Timestamp, WorkspaceId } from './common.ts'

/** An owner namespace's plan; it sets how long the audit trail is kept (SPEC "Limits"). */
export const plans = ['free', 'pro', 'team'] as const
export const PlanSchema = Type.Enum(plans, { description: 'free (audit kept 7 days), pro (90 days) or team (365 days).' })
export type Plan = Static<typeof PlanSchema>

/** The signed-in caller's own account. */
export const Profile = Type.Object({
  id: Type.String({ description: 'User identifier (`usr_…`).' }),
  email: Email,
  emailVerified: Type.Boolean(),
  username: Type.String({ description: "The user's name, which is also the slug of their personal workspace." }),
  personalWorkspaceId: WorkspaceId,
  plan: PlanSchema,
  createdAt: Timestamp,
})
export type Profile = Static<typeof Profile>

export const UpdateProfileBody = Type.Object(
  { username: { ...Slug, description: 'The new username; it renames the personal workspace (and the URLs under it).' } },
  { additionalProperties: false },
)
export type UpdateProfileBody = Static<typeof UpdateProfileBody>
