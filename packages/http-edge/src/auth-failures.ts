/// <reference path="./rate-limit-stores.d.ts" />
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
 * token ever sends (the CLI stops at the first 401 and says `quire login`).
 */
export const defaultAuthFailures: AuthFailureSettings = { max: 30, windowMs: 600_000 }

/** The request's client address as the limits count it (an IPv6 address by its /64). */
export type AddressOf = (request: FastifyRequest) => string

/**
 * Refused secrets, counted per client address: bearer credentials at the API and `/mcp`, share
 * links at the web app's `/s/…` pages (one budget for all). The general limit counts per credential, so every guessed
 * token would get a fresh budget; this one counts what was refused against where it came from
 * (`TRUST_PROXY` decides what that is), in the same store as the general limit (memory, Redis or
 * PostgreSQL), so that all processes share one count.
 *
 * - A presented secret is always looked up (the one indexed read the request makes anyway): a
 *   valid one passes whatever its address did, and valid callers never touch the store.
 * - A refused one counts against its address; past `max` in the window the answer is 429
 *   `rate_limited` with `Retry-After` instead of the refusal (401, or the page's 404), and the
 *   address going over is logged once per window.
 *
 * So a valid credential is never refused for its neighbours' guesses. The price: past the budget
 * an address's guesses are still looked up, and one that hit a valid secret would pass. With
 * Quire's secrets (256 random bits each) no rate of guessing finds one; the budget marks the
 * guesser (docs/decisions.md "Hardening at the edge").
 */
export interface AuthFailureLimiter {
  /** After a refused secret: counts it; the failure to answer with (429 past the budget, else the one given). */
  failed(request: FastifyRequest, failure: Failure): Promise<Failure>
}

type Backend =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis'; readonly redis: Redis; readonly prefix: string }
  | { readonly kind: 'store'; readonly store: RateLimitStore }

function storeFor(backend: Backend): RateLimitStore {
  switch (backend.kind) {
    case 'memory':
      return new LocalStore(false, false, 5_000)
    case 'redis':
      return new RedisStore(false, false, backend.redis, `${backend.prefix}quire:auth-failures:`)
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

  const limited = (retryAfterMs: number): Failure => {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
    return {
      code: 'rate_limited',
      message: `Too many requests from your address with a credential that is not valid (an API key, a token or a share link): at most ${settings.max} per ${windowWords(settings.windowMs)}. Retry in ${seconds} s, or with a valid one now.`,
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
    async failed(request, failure) {
      let counted: { current: number; ttl: number }
      try {
        counted = await count(`address:${addressOf(request)}`)
      } catch (error) {
        // As the general limit does: an outage of the counter store is not an outage of Quire.
        log.warn({ err: error }, 'rate limit: the counter store failed; the refused credential was not counted')
        return failure
      }
      if (counted.current === settings.max + 1)
        log.warn({ address: addressOf(request), max: settings.max }, 'refused credentials: an address went over its budget')
      return counted.current <= settings.max ? failure : limited(counted.ttl)
    },
  }
}
