/** The kinds of audit event: part of the contract, since callers filter the trail by them. */

/**
 * Events about a person's credentials and identity. They are recorded in the person's personal
 * workspace (whose plan sets their retention) but belong to the account: only that person reads
 * them (`GET /api/audit-events`), never the members of the workspace they are filed under.
 */
export const accountActions = [
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'user.created',
  'user.identity_linked',
  'profile.username_changed',
  'oauth.client_registered',
  'oauth.token_issued',
  'oauth.token_refreshed',
  'oauth.token_revoked',
  'oauth.grant_revoked',
  'session.started',
  'session.ended',
  'credential.rejected',
  'agent.registered',
  'agent.claim_requested',
  'agent.claimed',
  'agent.scopes_requested',
  'agent.scopes_granted',
  'agent.token_issued',
  'agent.revoked',
  'token.revoked',
] as const

/** Events about content and workspaces: the workspace's members read them. */
export const workspaceActions = [
  'artifact.created',
  'artifact.version_created',
  'artifact.restored',
  'artifact.deleted',
  'artifact.access_changed',
  'share_link.created',
  'share_link.revoked',
  'project.created',
  'workspace.created',
  'workspace.plan_changed',
  'workspace.invitation_created',
  'workspace.invitation_revoked',
  'workspace.member_joined',
] as const

/** Every kind of audit event Quire records. */
export const auditActions = [...workspaceActions, ...accountActions] as const
export type AuditAction = (typeof auditActions)[number]
