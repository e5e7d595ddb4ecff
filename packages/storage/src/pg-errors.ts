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
