import type { CommandSpec } from '../types.ts'
import { artifactId, auditAction, change, idFlag, list } from './rows.ts'

/** Share links, and the audit trail. */
export const sharingCommands: readonly CommandSpec[] = [
  change(['share', 'create'], 'Create a share link (its URL is shown once)', 'createShareLink', [
    artifactId,
    { name: 'role', type: 'string', choices: ['viewer', 'editor'], description: 'What the link grants (default viewer)', to: 'body.role' },
    {
      name: 'expires-at',
      type: 'string',
      description: 'When it stops working (ISO 8601 UTC, at most a year ahead)',
      to: 'body.expiresAt',
    },
  ]),
  list(
    ['share', 'list'],
    "List an artifact's share links",
    'listShareLinks',
    ['id', 'role', 'status', 'expiresAt', 'createdAt'],
    [artifactId],
  ),
  change(['share', 'revoke'], 'Revoke a share link at once', 'revokeShareLink', [
    idFlag('share-link-id', 'shareLinkId', 'Share link id (shl_…)'),
  ]),
]

export const auditCommands: readonly CommandSpec[] = [
  list(
    ['audit', 'list'],
    "List audit events: an artifact's, or your account's",
    'listAuditEvents',
    ['at', 'action', 'actor.label', 'via.surface', 'artifactId'],
    [
      { name: 'artifact-id', type: 'string', description: 'Artifact id (default: account-level events)', to: 'query.artifactId' },
      auditAction,
    ],
  ),
]
