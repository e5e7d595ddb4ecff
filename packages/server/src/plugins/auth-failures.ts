/// <reference path="../rate-limit-stores.d.ts" />
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { Failure } from '@quire/core'
import type { RateLimitStore } from '@quire/storage'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'

/** How many refused credentials an address may present per window before it must wait. */
export interface AuthFailureSettings {
  readonly max: number
  readonly windowMs: number
}

/**
 * Thirty refused credentials in ten minutes: far more than a person or a client fumbling a stale
 * token ever sends (the CLI stops at the first 401 and says `quire login`), and a few thousand
 * guesses a day at most from one address, each one a 429 without a database lookup.
 */
export const defaultAuthFailures: AuthFailureSettings = { max: 30, windowMs: 600_000 }

/** Credentials seen valid, remembered so that a blocked address does not lock out its good callers. */
const KNOWN_GOOD_ENTRIES = 10_000

/** The request's client address as the limits count it (an IPv6 address by its /64). */
export type AddressOf = (request: FastifyRequest) => string

/**
 * Failed authentication, counted per client address. The general limit counts per credential, so
 * every guessed token would get a fresh budget; this one counts what was refused against where it
 * came from (`TRUST_PROXY` decides what that is), in the same store as the general limit (memory,
 * Redis or PostgreSQL), so that all processes share one count.
 *
 * - After a refused credential (`invalid_token`), the address's count goes up; past `max` the
 *   answer is 429 `rate_limited` with `Retry-After` instead of 401.
 * - From then until the window ends, this process refuses that address's credentials before
 *   looking them up (no database round trip, and no answer that tells a good guess from a bad
 *   one), except those it has seen valid: a good caller behind the same address is not locked out.
 * - Valid callers never touch the store: nothing is counted for them.
 */
export interface AuthFailureLimiter {
  /** Before authentication: the refusal for a blocked address's unproven credential, or null. */
  refusal(request: FastifyRequest, secretHash: string): Failure | null
  /** After a refused credential: counts it; the failure to answer with (429 past the budget, else the 401). */
  failed(request: FastifyRequest, failure: Failure): Promise<Failure>
  /** After a credential proved valid. */
  succeeded(secretHash: string): void
}

type Backend =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis'; readonly redis: Redis }
  | { readonly kind: 'store'; readonly store: RateLimitStore }

function storeFor(backend: Backend): RateLimitStore {
  switch (backend.kind) {
    case 'memory':
      return new LocalStore(false, false, 5_000)
    case 'redis':
      return new RedisStore(false, false, backend.redis, 'quire:auth-failures:')
    case 'store':
      return backend.store
  }
}

function windowWords(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`
}

export function createAuthFailureLimiter(
  settings: AuthFailureSettings,
  backend: Backend,
  addressOf: AddressOf,
  log: FastifyBaseLogger,
): AuthFailureLimiter {
  const store = storeFor(backend)
  /** Addresses past their budget, and when their window ends (this process's knowledge). */
  const blockedUntil = new Map<string, number>()
  const knownGood = new Set<string>()

  const limited = (retryAfterMs: number): Failure => {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
    return {
      code: 'rate_limited',
      message: `Too many requests with a credential that is not valid from your address: at most ${settings.max} per ${windowWords(settings.windowMs)}. Retry in ${seconds} s with a valid credential.`,
      meta: { retryAfter: seconds },
    }
  }

  const count = (key: string) =>
    new Promise<{ current: number; ttl: number }>((done, fail) => {
      store.incr(
        key,
        (error, result) => (error || !result ? fail(error ?? new Error('no count')) : done(result)),
        settings.windowMs,
        settings.max,
      )
    })

  return {
    refusal(request, secretHash) {
      if (blockedUntil.size === 0) return null
      const address = addressOf(request)
      const until = blockedUntil.get(address)
      if (until === undefined) return null
      const left = until - Date.now()
      if (left <= 0) {
        blockedUntil.delete(address)
        return null
      }
      return knownGood.has(secretHash) ? null : limited(left)
    },
    async failed(request, failure) {
      const address = addressOf(request)
      let counted: { current: number; ttl: number }
      try {
        counted = await count(`address:${address}`)
      } catch (error) {
        // As the general limit does: an outage of the counter store is not an outage of Quire.
        log.warn({ err: error }, 'rate limit: the counter store failed; the refused credential was not counted')
        return failure
      }
      if (counted.current <= settings.max) return failure
      blockedUntil.set(address, Date.now() + counted.ttl)
      if (blockedUntil.size > KNOWN_GOOD_ENTRIES) {
        const oldest = blockedUntil.keys().next().value
        if (oldest !== undefined) blockedUntil.delete(oldest)
      }
      return limited(counted.ttl)
    },
    succeeded(secretHash) {
      if (knownGood.has(secretHash)) return
      knownGood.add(secretHash)
      if (knownGood.size > KNOWN_GOOD_ENTRIES) {
        const oldest = knownGood.values().next().value
        if (oldest !== undefined) knownGood.delete(oldest)
      }
    },
  }
}
