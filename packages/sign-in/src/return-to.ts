import { webRoutes } from '@quire/pages'
/** Where a sign-in ends when no (acceptable) destination was asked for. */
export const defaultReturnTo = webRoutes.home.path()

const maxLength = 2048

/**
 * The page to land on after signing in, if `value` is a path on this origin; otherwise `/`.
 * Accepted: a path starting with exactly one `/`. Refused: `//host` and `/\host` (browsers read
 * both as another host), any scheme, backslashes and control characters anywhere (browsers turn
 * `\` into `/` and drop tabs and newlines, which would rebuild `//`), ill-formed text, and
 * anything long. What is returned is always a valid `Location` header: every character outside
 * printable ASCII (a space, `。`, an emoji) is percent-encoded as UTF-8, as a browser would send
 * it, and nothing else is changed (no normalisation that could turn `/..//host` into `//host`).
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) return defaultReturnTo
  if (!value.startsWith('/') || value.startsWith('//')) return defaultReturnTo
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\\\u0000-\u001f\u007f]/.test(value) || !value.isWellFormed()) return defaultReturnTo
  // Belt and braces: resolved against a placeholder origin, it must stay on that origin.
  const base = 'http://return-to.invalid'
  if (!URL.canParse(value, base) || new URL(value, base).origin !== base) return defaultReturnTo
  const encoded = value.replace(/[^\x21-\x7e]/gu, (character) => encodeURIComponent(character))
  return encoded.length > maxLength ? defaultReturnTo : encoded
}
