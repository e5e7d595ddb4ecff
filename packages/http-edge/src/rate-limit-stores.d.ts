// The counter stores of @fastify/rate-limit, which ships no types for them: the failed-authentication
// limit (plugins/auth-failures.ts) counts in the same kind of store as the plugin does.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  import type { RateLimitStore } from '@quire/storage'

  const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => RateLimitStore
  // biome-ignore lint/style/noDefaultExport: the module's real shape (CommonJS `module.exports = LocalStore`)
  export default LocalStore
}

declare module '@fastify/rate-limit/store/RedisStore.js' {
  import type { RateLimitStore } from '@quire/storage'
  import type { Redis } from 'ioredis'

  const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string) => RateLimitStore
  // biome-ignore lint/style/noDefaultExport: the module's real shape (CommonJS `module.exports = RedisStore`)
  export default RedisStore
}
