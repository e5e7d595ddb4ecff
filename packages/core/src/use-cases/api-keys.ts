import type { ApiKey, CreateApiKeyBody, CreatedApiKey } from '../contract/schemas/api-key.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { newSecret, secretPrefixes } from '../domain/secrets.ts'
import type { ApiKeyRecord } from '../ports/records.ts'
import { admitAccount } from './access.ts'
import type { CoreDeps } from './deps.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, secretShownOnce, type Written } from './idempotency.ts'
import { pageOfIds } from './paging.ts'

export function presentApiKey(record: ApiKeyRecord, now: Date): ApiKey {
  const status = record.revokedAt !== null ? 'revoked' : record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active'
  return {
    id: record.id,
    name: record.name,
    prefix: record.displayPrefix,
    scopes: [...record.scopes],
    status,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    expiresAt: record.expiresAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  }
}

function credentialIdOf(principal: Principal): string | null {
  return principal.kind === 'anonymous' ? null : principal.credentialId
}

/** The caller's keys that are not revoked, newest first. */
export async function listApiKeys(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<ApiKey>>> {
  const account = await admitAccount(deps, caller, 'api_key.manage')
  if (!account.ok) return account
  const now = deps.clock.now()
  return pageOfIds(
    query,
    'key',
    (page) => deps.apiKeys.listForUser(account.value.userId, page),
    (r) => presentApiKey(r, now),
  )
}

/**
 * Creates an API key. Its scopes are at most those of the credential creating it (a key cannot
 * mint a stronger key), and whatever its scopes, it acts with its owner's rights and no more.
 */
export async function createApiKey(
  deps: CoreDeps,
  caller: Caller,
  body: CreateApiKeyBody,
  idempotencyKey?: string,
): Promise<Result<Written<CreatedApiKey>>> {
  const account = await admitAccount(deps, caller, 'api_key.manage')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const held = principal.kind === 'anonymous' || principal.kind === 'share_link' ? [] : principal.scopes
  const missing = held === 'all' ? undefined : body.scopes.find((scope) => !held.includes(scope))
  if (missing !== undefined) {
    return fail('insufficient_scope', `This credential does not carry \`${missing}\`, so a key it creates cannot carry it either.`, {
      scope: missing,
    })
  }
  const at = deps.clock.now()
  const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt)
  if (expiresAt !== null && expiresAt <= at) {
    return fail('validation_failed', `expiresAt must be in the future (got "${body.expiresAt}").`, {
      errors: [{ path: '/body/expiresAt', message: 'must be in the future' }],
    })
  }
  const plan = await planIdempotency(deps, principal, idempotencyKey, 'createApiKey', body)
  // A replay is the key as it is now, without its secret (which was never stored).
  const now = async (stored: CreatedApiKey): Promise<CreatedApiKey> => {
    const key = await deps.apiKeys.find(userId, stored.id)
    return { ...(key ? presentApiKey(key, deps.clock.now()) : stored), secret: null, notice: secretShownOnce }
  }
  const earlier = await replay<CreatedApiKey>(deps, plan, now)
  if (earlier) return earlier

  const profile = await deps.accounts.profile(userId)
  if (profile === null) return fail('invalid_token', 'The account behind this credential no longer exists.')
  const secret = await newSecret(secretPrefixes.apiKey)
  const record: ApiKeyRecord = {
    id: deps.ids.next('key'),
    name: body.name,
    displayPrefix: secret.display,
    scopes: [...body.scopes],
    createdAt: at,
    lastUsedAt: null,
    expiresAt,
    revokedAt: null,
  }
  const created: CreatedApiKey = { ...presentApiKey(record, at), secret: secret.secret }
  const outcome = await deps.apiKeys.create({
    id: record.id,
    userId,
    name: record.name,
    scopes: record.scopes,
    secretHash: secret.hash,
    displayPrefix: record.displayPrefix,
    expiresAt,
    at,
    guard: { credentialId: credentialIdOf(principal), at },
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'api_key.created',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: profile.personalWorkspaceId,
      artifactId: null,
      data: { apiKeyId: record.id, name: record.name, scopes: record.scopes, prefix: record.displayPrefix, userId },
    },
    // What a retry gets back: the key without its secret.
    idempotency: idempotencyDraft(plan, 201, { ...created, secret: null }, at),
  })
  if (outcome.ok) return ok({ value: created, replayed: false })
  if (outcome.reason === 'idempotency_taken') return replayAfterRace<CreatedApiKey>(deps, plan, now)
  return fail('forbidden', 'Your credential changed while creating the key; nothing was written.')
}

/** Revokes one of the caller's keys at once. Revoking it again changes nothing and is not an error. */
export async function revokeApiKey(deps: CoreDeps, caller: Caller, apiKeyId: string): Promise<Result<ApiKey>> {
  const account = await admitAccount(deps, caller, 'api_key.manage')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const profile = await deps.accounts.profile(userId)
  if (profile === null) return fail('invalid_token', 'The account behind this credential no longer exists.')
  const at = deps.clock.now()
  const outcome = await deps.apiKeys.revoke({
    keyId: apiKeyId,
    userId,
    guard: { credentialId: credentialIdOf(principal), at },
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'api_key.revoked',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: profile.personalWorkspaceId,
      artifactId: null,
      data: { apiKeyId, userId },
    },
  })
  if (outcome.ok) return ok(presentApiKey(outcome.key, at))
  if (outcome.reason === 'refused') return fail('forbidden', 'Your credential changed while revoking; nothing was written.')
  return fail('not_found', unseen.apiKey)
}
