import { isScope, type Scope, scopes } from '@quire/core'

/** A parsed JSON body that is an object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

// One `@`, something on both sides, a dot in the domain, no spaces, no control characters, no
// characters that only appear in display forms (`Name <a@b>`) or address lists.
const emailShape = /^[^\s@<>(),;:"\\[\]\p{Cc}]+@[^\s@<>(),;:"\\[\]\p{Cc}]+\.[^\s@<>(),;:"\\[\]\p{Cc}.][^\s@<>(),;:"\\[\]\p{Cc}]*$/u

/**
 * An email as the layer keeps it (trimmed, lower-cased), or null when it does not look like one
 * (at most 254 characters, a local part of at most 64). Quire compares it with the signed-in
 * person's verified email, case-insensitively.
 */
export function normaliseEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const email = value.trim().toLowerCase()
  if (email.length > 254 || !emailShape.test(email)) return null
  const at = email.indexOf('@')
  if (at > 64 || email.endsWith('.') || email.includes('..')) return null
  return email
}

export type ScopeRequest =
  | { readonly ok: true; readonly scopes: Scope[] }
  /** `request`: the field has the wrong type (invalid_request); `scope`: a scope is unknown or not allowed (invalid_scope). */
  | { readonly ok: false; readonly kind: 'request' | 'scope'; readonly why: string }

/**
 * Requested scopes within what is allowed: absent → all of `allowed`; a list (or a
 * space-separated string, as OAuth writes scopes) → those, each of which must be a known scope
 * within `allowed`. Duplicates merge; the order is the scope list's.
 */
export function requestScopes(requested: unknown, allowed: readonly Scope[], field: string): ScopeRequest {
  if (requested === undefined || requested === null) return { ok: true, scopes: [...allowed] }
  let names: unknown[]
  if (typeof requested === 'string') names = requested.split(' ').filter(Boolean)
  else if (Array.isArray(requested)) names = requested
  else return { ok: false, kind: 'request', why: `${field} must be a list of scope names` }
  if (names.length === 0)
    return { ok: false, kind: 'scope', why: `${field} is empty: omit it to get every allowed scope (${allowed.join(' ')})` }
  if (names.length > 64) return { ok: false, kind: 'request', why: `${field} lists too many scopes` }
  for (const name of names) {
    if (typeof name !== 'string' || !isScope(name)) {
      return { ok: false, kind: 'scope', why: `${field} has ${quote(name)}, which is not a scope (known: ${scopes.join(' ')})` }
    }
    if (!allowed.includes(name))
      return { ok: false, kind: 'scope', why: `${field} has ${name}, which is not allowed here (allowed: ${allowed.join(' ')})` }
  }
  return { ok: true, scopes: allowed.filter((s) => names.includes(s)) }
}

/** A string field: the value, undefined when absent (or null), null when present with another type. */
export function stringField(body: Record<string, unknown>, name: string): string | undefined | null {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : null
}

/** A value for an error description: JSON, cut to 60 characters (descriptions echo no long input). */
export function quote(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? typeof value
  } catch {
    text = typeof value
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
