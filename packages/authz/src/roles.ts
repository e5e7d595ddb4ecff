import { type Action, Actions, type Role } from '@quire/core'

/**
 * What each workspace role may do to the workspace's projects and artifacts. Members write
 * content and read the audit trail; owners and admins also delete, share and change access.
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
  ]),
}

/** What a share link's role grants on its one artifact. */
export const linkGrants: Readonly<Record<'viewer' | 'editor', ReadonlySet<Action>>> = {
  viewer: new Set<Action>(['artifact.read']),
  editor: new Set<Action>(['artifact.read', 'artifact.update']),
}
