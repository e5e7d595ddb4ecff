import { canonicalJson } from '../domain/hash.ts'
import type { Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { IdempotencyDraft } from '../ports/records.ts'
import type { CoreDeps } from './deps.ts'

/** A write's outcome, and whether it is a replay of an earlier identical request. */
export interface Written<T> {
  readonly value: T
  readonly replayed: boolean
}

export interface IdempotencyPlan {
  readonly scope: string
  readonly key: string
  readonly requestHash: string
}

/** Whose keys these are: the user, or the credential when there is no user. */
function scopeOf(principal: Principal): string {
  switch (principal.kind) {
    case 'session':
    case 'api_key':
    case 'oauth':
      return principal.user.id
    case 'agent':
      return principal.user?.id ?? principal.credentialId
    case 'share_link':
      return principal.credentialId
    case 'anonymous':
      return 'anonymous'
  }
}

/** Prepares idempotency for a write: null when the caller sent no key. */
export async function planIdempotency(
  deps: CoreDeps,
  principal: Principal,
  key: string | undefined,
  operation: string,
  request: unknown,
): Promise<IdempotencyPlan | null> {
  if (key === undefined) return null
  const requestHash = await deps.sha256(canonicalJson({ operation, request }))
  return { scope: scopeOf(principal), key, requestHash }
}

/** The stored result for a key, if any: a replay when the request matches, a 422 when not. */
export async function replay<T>(deps: CoreDeps, plan: IdempotencyPlan | null): Promise<Result<Written<T>> | null> {
  if (plan === null) return null
  const found = await deps.idempotency.find(plan.scope, plan.key)
  if (found === null) return null
  if (found.requestHash !== plan.requestHash) {
    return fail('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.')
  }
  return ok({ value: found.response as T, replayed: true })
}

/** The record to store with the write, so that a retry finds it. */
export function idempotencyDraft(plan: IdempotencyPlan | null, status: number, response: unknown, at: Date): IdempotencyDraft | null {
  return plan === null ? null : { ...plan, status, response, at }
}

/** After the store reports that another request took the key first: replay it. */
export async function replayAfterRace<T>(deps: CoreDeps, plan: IdempotencyPlan | null): Promise<Result<Written<T>>> {
  const again = await replay<T>(deps, plan)
  return again ?? fail('idempotency_key_in_use', 'Another request with this Idempotency-Key is in progress; retry shortly.')
}
