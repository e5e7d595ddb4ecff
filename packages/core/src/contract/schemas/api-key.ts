import { type Static, Type } from 'typebox'
import { ScopeSchema } from '../scopes.ts'
import { Id, PathSegment, Text, Timestamp } from './common.ts'

export const ApiKeyId = Id('key', 'API key identifier.')

/** An API key as listed: never its secret, only a prefix to recognise it by. */
export const ApiKey = Type.Object({
  id: ApiKeyId,
  name: Type.String({ description: 'The name given to the key.' }),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise it.' }),
  scopes: Type.Array(ScopeSchema, { description: 'What the key may do (never more than its owner may).' }),
  status: Type.Enum(['active', 'expired', 'revoked'], { description: 'active, expired (past `expiresAt`) or revoked.' }),
  createdAt: { ...Timestamp, description: 'When the key was created.' },
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'When the key was last used, recorded to the minute; null if never.' }),
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When the key stops working; null if it never expires.' }),
  revokedAt: Type.Union([Timestamp, Type.Null()], { description: 'When the key was revoked; null unless revoked.' }),
})
export type ApiKey = Static<typeof ApiKey>

export const CreateApiKeyBody = Type.Object(
  {
    name: Text({ minLength: 1, maxLength: 100, description: 'A name to recognise the key by, 1–100 characters.' }),
    scopes: Type.Array(ScopeSchema, {
      minItems: 1,
      uniqueItems: true,
      description: 'What the key may do; never more than the credential creating it carries.',
    }),
    expiresAt: Type.Optional({ ...Timestamp, description: 'When the key stops working (in the future); never, when left out.' }),
  },
  { additionalProperties: false },
)
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>

/** The answer to creating a key: the only time its secret is shown. */
export const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  secret: Type.Union([Type.String(), Type.Null()], {
    description:
      "The key: send it as `Authorization: Bearer <secret>`. Shown once; Quire keeps only its SHA-256. Null when this answer replays an earlier request with the same `Idempotency-Key` (then `notice` says so, and `status` is the key's status now).",
  }),
  notice: Type.Optional(Type.String({ description: 'Set on a replay: why `secret` is null.' })),
})
export type CreatedApiKey = Static<typeof CreatedApiKey>

export const ApiKeyParams = Type.Object(
  { apiKeyId: { ...PathSegment, description: 'API key identifier (`key_…`).' } },
  { additionalProperties: false },
)
export type ApiKeyParams = Static<typeof ApiKeyParams>
