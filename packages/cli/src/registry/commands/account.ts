import type { CommandSpec } from '../types.ts'
import { change, idFlag, list, show } from './rows.ts'

/** The signed-in person: profile, invitations to them, API keys, the agents they claimed. */
export const accountCommands: readonly CommandSpec[] = [
  show(['profile', 'get'], 'Show your profile', 'getProfile'),
  change(['profile', 'set-username'], 'Change your username (renames your personal namespace)', 'updateProfile', [
    { name: 'username', type: 'string', required: true, description: 'The new username', to: 'body.username' },
  ]),
  list(['profile', 'invitations'], 'List pending invitations to your verified email', 'listMyInvitations', [
    'id',
    'workspaceSlug',
    'role',
    'expiresAt',
  ]),

  list(['keys', 'list'], 'List your API keys', 'listApiKeys', ['id', 'name', 'prefix', 'scopes', 'status', 'lastUsedAt']),
  change(['keys', 'create'], 'Create an API key (its secret is shown once)', 'createApiKey', [
    { name: 'name', type: 'string', required: true, description: 'A name to recognise the key by', to: 'body.name' },
    {
      name: 'scopes',
      type: 'array',
      required: true,
      description: 'Scopes, comma- or space-separated (e.g. artifacts:read,artifacts:create)',
      to: 'body.scopes',
    },
  ]),
  change(['keys', 'revoke'], 'Revoke an API key at once', 'revokeApiKey', [idFlag('api-key-id', 'apiKeyId', 'API key id (key_…)')]),

  list(['agent', 'list'], 'List the agents you claimed, with when each was last used', 'listAgents', [
    'id',
    'type',
    'scopes',
    'claimedAt',
    'lastUsedAt',
    'revokedAt',
  ]),
  change(['agent', 'revoke'], 'Revoke an agent: every token of it stops at once', 'revokeAgent', [
    idFlag('agent-id', 'agentId', 'Agent id (agt_…)'),
  ]),
]
