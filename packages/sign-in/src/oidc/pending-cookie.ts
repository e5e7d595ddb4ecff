// The cookie plugin that the sessions register (@quire/web-http) gives requests and replies these methods.
/// <reference types="@fastify/cookie" />
import { webRoutes } from '@quire/pages'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { safeReturnTo } from '../return-to.ts'
import type { PendingSignIn } from './relying-party.ts'

/**
 * The attempt in progress lives in the browser, in a signed cookie scoped to the callback path
 * that lasts ten minutes: nothing is stored server-side, any process can finish the sign-in, and
 * the state it carries binds the provider's answer to this browser (no login CSRF).
 * SameSite=Lax still sends it on the provider's top-level redirect back.
 */
const cookieName = 'quire_sign_in'
const path = webRoutes.signInCallback.path()
const maxAgeSeconds = 600

export function savePendingSignIn(reply: FastifyReply, pending: PendingSignIn, secure: boolean): void {
  const value = Buffer.from(JSON.stringify(pending)).toString('base64url')
  reply.setCookie(cookieName, value, { signed: true, httpOnly: true, sameSite: 'lax', secure, path, maxAge: maxAgeSeconds })
}

/** The attempt this browser started, or null (none, expired, or tampered with). */
export function readPendingSignIn(request: FastifyRequest): PendingSignIn | null {
  const raw = request.cookies[cookieName]
  if (raw === undefined) return null
  const unsigned = request.unsignCookie(raw)
  if (!unsigned.valid || unsigned.value === null) return null
  try {
    const parsed = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as Record<string, unknown>
    const { state, nonce, codeVerifier, returnTo } = parsed
    if (typeof state !== 'string' || typeof nonce !== 'string' || typeof codeVerifier !== 'string') return null
    return { state, nonce, codeVerifier, returnTo: safeReturnTo(returnTo) }
  } catch {
    return null
  }
}

export function clearPendingSignIn(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(cookieName, { httpOnly: true, sameSite: 'lax', secure, path })
}
