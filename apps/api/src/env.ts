import { type Static, Type } from 'typebox'
import { Value } from 'typebox/value'

/** Every setting the API reads from its environment, with defaults. The only reader of process.env. */
export const Env = Type.Object({
  API_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  API_HOST: Type.String({ default: '127.0.0.1' }),
  /** Public address of this API (used in links and OpenAPI). */
  API_URL: Type.Optional(Type.String()),
  /** Public address of the web app (artifact URLs are built from it). */
  WEB_URL: Type.String({ default: 'http://localhost:3001' }),
  /** PostgreSQL connection URL; when unset, the embedded PGlite database in QUIRE_DATA_DIR is used. */
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** Prepare statements per connection; turn off behind a transaction-pooling proxy (PgBouncer). */
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
  QUIRE_DATA_DIR: Type.String({ default: '.quire' }),
  QUIRE_CONTENT_MAX_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  /** Log every request, not only failures. */
  LOG_REQUESTS: Type.Boolean({ default: false }),
  NODE_ENV: Type.String({ default: 'development' }),
})
export type Env = Static<typeof Env>

/** Reads and validates the environment once; a bad value fails at boot with its name. */
export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  const known = Object.fromEntries(
    Object.keys(Env.properties).flatMap((k) => (source[k] === undefined || source[k] === '' ? [] : [[k, source[k]]])),
  )
  const converted = Value.Convert(Env, Value.Default(Env, known))
  const errors = [...Value.Errors(Env, converted)]
  if (errors.length > 0) {
    const first = errors[0]
    throw new Error(`Invalid environment: ${first?.instancePath.replace(/^\//, '') || 'value'} ${first?.message ?? 'is invalid'}`)
  }
  return Object.freeze(converted as Env)
}
