import { defineOperation } from '../operation.ts'
import { ApiKey, ApiKeyParams, CreateApiKeyBody, CreatedApiKey } from '../schemas/api-key.ts'
import { Page, PageQuery } from '../schemas/common.ts'

/** The caller's API keys. */
export const apiKeyOperations = {
  listApiKeys: defineOperation({
    method: 'GET',
    path: '/api/api-keys',
    summary: "List the caller's API keys that are not revoked, newest first (never their secrets)",
    tags: ['api keys'],
    action: 'api_key.manage',
    anonymous: false,
    query: PageQuery,
    success: { status: 200, schema: Page(ApiKey) },
    errors: ['forbidden', 'insufficient_scope', 'invalid_cursor'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
  createApiKey: defineOperation({
    method: 'POST',
    path: '/api/api-keys',
    summary: 'Create an API key with a name, scopes and an optional expiry',
    description:
      'The secret is returned once. A key carries at most the scopes of the credential creating it, and never grants more than its owner has.',
    tags: ['api keys'],
    action: 'api_key.manage',
    anonymous: false,
    body: CreateApiKeyBody,
    idempotencyKey: true,
    success: { status: 201, schema: CreatedApiKey },
    location: { operation: 'listApiKeys', params: {} },
    errors: ['forbidden', 'insufficient_scope', 'idempotency_key_reused', 'idempotency_key_in_use'],
    hints: { readOnly: false, destructive: false, idempotent: false },
  }),
  revokeApiKey: defineOperation({
    method: 'DELETE',
    path: '/api/api-keys/:apiKeyId',
    summary: 'Revoke an API key at once (idempotent)',
    description: 'Revoking a revoked key changes nothing and is not an error.',
    tags: ['api keys'],
    action: 'api_key.manage',
    anonymous: false,
    params: ApiKeyParams,
    success: { status: 200, schema: ApiKey },
    errors: ['not_found', 'forbidden', 'insufficient_scope'],
    hints: { readOnly: false, destructive: true, idempotent: true },
  }),
} as const
