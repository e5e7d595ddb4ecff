import { REDACTED } from '@quire/client'
import { secretPrefixes } from '@quire/core/contract'

/** Quire's own secrets (API keys, OAuth and agent tokens, share links) by their prefixes. */
const prefixed = new RegExp(`\\b(${Object.values(secretPrefixes).join('|')})[A-Za-z0-9_-]{8,}`, 'g')
/** A JWT (three base64url parts, the first a JSON header). */
const jwt = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g
/** An opaque credential after `Bearer `: long and without spaces (words such as "Bearer token" stay). */
const bearer = /(Bearer\s+)[A-Za-z0-9._~+/-]{20,}=*/g

/**
 * Secrets never reach the terminal: not in a message, a hint or a stack trace. Only secret
 * values are replaced — the ones this run was given, and anything shaped like a credential — so
 * the server's words around them stay as they were.
 */
export function redact(text: string, known: readonly string[] = []): string {
  let out = text
  for (const secret of known) if (secret.length >= 8) out = out.split(secret).join(REDACTED)
  return out.replace(prefixed, `$1${REDACTED}`).replace(jwt, REDACTED).replace(bearer, `$1${REDACTED}`)
}
