import { createHmac, timingSafeEqual } from 'node:crypto'
import { csrfField } from '@quire/pages'

/** Form field (the pages' forms name it) and header that carry the token. */
export { csrfField }
export const csrfHeader = 'x-csrf-token'

/**
 * CSRF tokens bound to a session: the HMAC of the session's credential id under a key derived
 * from SESSION_SECRET. Nothing to store; a token is good for exactly one session, and a page
 * from before a sign-out or another person's sign-in no longer submits.
 */
export function csrfTokens(sessionSecret: string) {
  const key = createHmac('sha256', sessionSecret).update('quire csrf tokens v1').digest()
  const tokenFor = (credentialId: string): string => createHmac('sha256', key).update(credentialId).digest('base64url')
  return {
    tokenFor,
    /** Whether `presented` is the token of this session (compared in constant time). */
    verify(credentialId: string, presented: unknown): boolean {
      if (typeof presented !== 'string') return false
      const expected = Buffer.from(tokenFor(credentialId))
      const given = Buffer.from(presented)
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}

export type CsrfTokens = ReturnType<typeof csrfTokens>
