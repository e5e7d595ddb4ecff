import { secretPrefixes } from '../contract/secret-prefixes.ts'
import { canonicalJson } from '../domain/hash.ts'
import type { Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { IdempotencyDraft } from '../ports/records.ts'
import type { CoreDeps } from './deps.ts'

/**
 * How long a write's result is kept for retries under its `Idempotency-Key`: long enough for any
 * client's retry loop (a day, as Stripe does), short enough that the table stays small. After it,
 * the key is forgotten and may be used afresh.
 */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000

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

/**
 * The stored result for a key within the window, if any: a replay when the request matches, a
 * 422 when not. `current` brings a stored answer up to date (a key's or link's status now).
 */
export async function replay<T>(
  deps: CoreDeps,
  plan: IdempotencyPlan | null,
  current?: (stored: T) => Promise<T>,
): Promise<Result<Written<T>> | null> {
  if (plan === null) return null
  const notBefore = new Date(deps.clock.now().getTime() - idempotencyWindowMs)
  const found = await deps.idempotency.find(plan.scope, plan.key, notBefore)
  if (found === null) return null
  if (found.requestHash !== plan.requestHash) {
    return fail('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.')
  }
  const stored = found.response as T
  return ok({ value: current ? await current(stored) : stored, replayed: true })
}

/** A bearer secret of Quire's anywhere in a string: a known prefix and more than a display prefix of it. */
const secretPattern = new RegExp(`(?:${Object.values(secretPrefixes).join('|')})[A-Za-z0-9_-]{16,}`)

function holdsSecret(value: unknown): boolean {
  if (typeof value === 'string') return secretPattern.test(value)
  if (Array.isArray(value)) return value.some(holdsSecret)
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsSecret)
  return false
}

/**
 * The record to store with the write, so that a retry finds it. It never holds a secret: a
 * use-case that hands one out stores the answer without it (see `createApiKey`), and a record that
 * would hold one anyway is refused here, before anything is written.
 */
export function idempotencyDraft(plan: IdempotencyPlan | null, status: number, response: unknown, at: Date): IdempotencyDraft | null {
  if (plan === null) return null
  if (holdsSecret(response)) throw new Error('An idempotency record would hold a secret; store the answer without it.')
  return { ...plan, status, response, at }
}

/** After the store reports that another request took the key first: replay it. */
export async function replayAfterRace<T>(
  deps: CoreDeps,
  plan: IdempotencyPlan | null,
  current?: (stored: T) => Promise<T>,
): Promise<Result<Written<T>>> {
  const again = await replay<T>(deps, plan, current)
  return again ?? keyInUse()
}

/** The answer when another request took the Idempotency-Key first and has not stored its answer yet. */
export function keyInUse<T>(): Result<T> {
  return fail('idempotency_key_in_use', 'Another request with this Idempotency-Key is in progress; retry shortly.')
}

/** What a replayed answer says in place of a secret it no longer has. */
export const secretShownOnce =
  'The secret was shown once, in the answer to the first request with this Idempotency-Key; Quire keeps only its SHA-256. If it is lost, create a new one (and revoke this one).'
