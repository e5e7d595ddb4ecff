import type { CommandSpec } from '../types.ts'
import { auditAction, change, idFlag, jsonFlag, list, workspaceId } from './rows.ts'

const invitationId = idFlag('invitation-id', 'invitationId', 'Invitation id (inv_…)')

/** Team workspaces, their members, projects, artifacts and invitations. */
export const workspaceCommands: readonly CommandSpec[] = [
  list(['workspace', 'list'], 'List the workspaces you belong to', 'listWorkspaces', ['id', 'slug', 'name', 'role', 'plan']),
  change(['workspace', 'create'], 'Create a team workspace', 'createWorkspace', [jsonFlag('The workspace ({slug, name})')]),
  list(
    ['workspace', 'members'],
    "List a workspace's members",
    'listWorkspaceMembers',
    ['userId', 'username', 'email', 'role', 'joinedAt'],
    [workspaceId],
  ),
  list(
    ['workspace', 'projects'],
    "List a workspace's projects",
    'listWorkspaceProjects',
    ['id', 'ownerUsername', 'slug', 'title'],
    [workspaceId],
  ),
  list(
    ['workspace', 'artifacts'],
    "List the artifacts of a workspace's projects",
    'listWorkspaceArtifacts',
    ['id', 'ownerUsername', 'projectSlug', 'slug', 'latestVersion', 'title'],
    [workspaceId],
  ),
  change(['workspace', 'invite'], 'Invite someone by email', 'createInvitation', [
    workspaceId,
    jsonFlag('The invitation ({email, role?})'),
  ]),
  list(
    ['workspace', 'invitations'],
    "List a workspace's invitations",
    'listInvitations',
    ['id', 'email', 'role', 'status', 'expiresAt'],
    [workspaceId],
  ),
  change(['workspace', 'revoke-invite'], 'Revoke a pending invitation', 'revokeInvitation', [invitationId]),
  change(['workspace', 'accept-invite'], 'Accept an invitation to your verified email', 'acceptInvitation', [invitationId]),
  list(
    ['workspace', 'audit'],
    "List a workspace's audit events",
    'listWorkspaceAuditEvents',
    ['at', 'action', 'actor.label', 'artifactId'],
    [workspaceId, auditAction],
  ),
]
