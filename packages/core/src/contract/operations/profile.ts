import { defineOperation } from '../operation.ts'
import { Profile, UpdateProfileBody } from '../schemas/account.ts'
import { Page, PageQuery } from '../schemas/common.ts'
import { Invitation } from '../schemas/workspace.ts'

const read = { readOnly: true, destructive: false, idempotent: true } as const

/** The caller's own account. */
export const profileOperations = {
  getProfile: defineOperation({
    method: 'GET',
    path: '/api/profile/me',
    summary: 'The current profile: who this credential acts for',
    tags: ['profile'],
    action: 'profile.read',
    anonymous: false,
    success: { status: 200, schema: Profile },
    errors: ['forbidden'],
    hints: read,
  }),
  updateProfile: defineOperation({
    method: 'PATCH',
    path: '/api/profile/me',
    summary: 'Set the username (which claims the personal workspace slug)',
    description:
      'Renames the personal workspace: artifact and project URLs under the old name stop resolving. A name someone else has is a 409 `slug_taken`; a reserved or malformed one a 400.',
    tags: ['profile'],
    action: 'profile.update',
    anonymous: false,
    body: UpdateProfileBody,
    success: { status: 200, schema: Profile },
    errors: ['forbidden', 'insufficient_scope', 'slug_taken'],
    hints: { readOnly: false, destructive: false, idempotent: true },
  }),
  listMyInvitations: defineOperation({
    method: 'GET',
    path: '/api/profile/invitations',
    summary: "Pending workspace invitations for the caller's verified email, newest first",
    tags: ['profile', 'workspaces'],
    action: 'profile.read',
    anonymous: false,
    query: PageQuery,
    success: { status: 200, schema: Page(Invitation) },
    errors: ['forbidden', 'invalid_cursor'],
    hints: read,
  }),
} as const
