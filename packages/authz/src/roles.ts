import { type Action, Actions, linkRoleActions, type Role } from '@quire/core'

/**
 * What each workspace role may do in the workspace. Members read and write content, see who else
 * is in, and read the audit trail; owners and admins also delete, share, change access and invite
 * (members or admins). Account-level actions (profile, keys, creating workspaces, accepting an
 * invitation) are decided on the account, not by a role.
 */
export const roleGrants: Readonly<Record<Role, ReadonlySet<Action>>> = {
  owner: new Set<Action>(Actions),
  admin: new Set<Action>(Actions),
  member: new Set<Action>([
    'artifact.read',
    'artifact.create',
    'artifact.update',
    'artifact.access.read',
    'audit.read',
    'project.read',
    'project.create',
    'workspace.read',
    'workspace.members.read',
  ]),
}

/** What a share link's role grants on its one artifact (the contract's `linkRoleActions`). */
export const linkGrants: Readonly<Record<'viewer' | 'editor', ReadonlySet<Action>>> = {
  viewer: new Set<Action>(linkRoleActions.viewer),
  editor: new Set<Action>(linkRoleActions.editor),
}
