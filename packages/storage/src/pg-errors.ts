/** A PostgreSQL error as both pg and PGlite report it. */
interface PgError {
  code?: string
  constraint?: string
}

/** True for a unique-constraint violation, optionally on a given constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as PgError | null
  if (e?.code !== '23505') return false
  return constraint === undefined || e.constraint === constraint
}

/**
 * True for a data exception (SQLSTATE class 22: a value out of range, bad encoding…): something
 * one value in a statement can cause, unlike a lost connection or a server shutting down.
 */
export function isDataException(error: unknown): boolean {
  const code = (error as PgError | null)?.code
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)
}
