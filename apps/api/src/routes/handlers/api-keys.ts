import { createApiKey, listApiKeys, revokeApiKey } from '@quire/core'
import { type Handler, idempotencyKey, reply, written } from '../handler.ts'

type ApiKeyOps = 'listApiKeys' | 'createApiKey' | 'revokeApiKey'

export const apiKeyHandlers: { [K in ApiKeyOps]: Handler<K> } = {
  listApiKeys: async ({ query }, { deps, caller }) => reply(await listApiKeys(deps, caller, query)),
  // The reply carries the secret (once): no cache may keep it.
  createApiKey: async ({ body }, { deps, caller, headers }) =>
    written(await createApiKey(deps, caller, body, idempotencyKey(headers)), () => ({
      location: '/api/api-keys',
      'cache-control': 'no-store',
    })),
  revokeApiKey: async ({ params }, { deps, caller }) => reply(await revokeApiKey(deps, caller, params.apiKeyId)),
}
