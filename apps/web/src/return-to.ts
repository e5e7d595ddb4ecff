/** Where a sign-in ends when no (acceptable) destination was asked for. */
export const defaultReturnTo = '/'

/**
 * The page to land on after signing in, if `value` is a path on this origin; otherwise `/`.
 * Accepted: a path starting with exactly one `/`. Refused: `//host` and `/\host` (browsers read
 * both as another host), any scheme, backslashes and control characters anywhere (browsers turn
 * `\` into `/` and drop tabs and newlines, which would rebuild `//`), and anything long.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return defaultReturnTo
  if (!value.startsWith('/') || value.startsWith('//')) return defaultReturnTo
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return defaultReturnTo
  // Belt and braces: resolved against a placeholder origin, it must stay on that origin.
  const base = 'http://return-to.invalid'
  if (!URL.canParse(value, base) || new URL(value, base).origin !== base) return defaultReturnTo
  return value
}
