/**
 * The server runtime both apps run on: the configuration schema (`readEnv`), the composition root
 * (`createRuntime`), the REST app built from the operation and binding tables (`buildApp`), the
 * operator socket and retention schedule, and the HTTP edge's failure mapping (statuses, problem
 * bodies) that the web app answers with too.
 */
export { type AppOptions, buildApp, edgeOptions, trustedProxies } from './app.ts'
export { agentAuthSettings, ConfigurationError, type Env, readEnv, readSettings, settingsOrExit } from './config.ts'
export { createRuntime, databaseConfig, type Runtime, startRuntime } from './container.ts'
export { type Discovery, discoveryDocuments } from './discovery.ts'
export { operatorSocketPath, runOperatorCommand, startOperatorSocket } from './operator.ts'
export type { AuthFailureLimiter } from './plugins/auth-failures.ts'
export { callerOf } from './plugins/caller.ts'
export {
  ACCESS_CHANGE_SECONDS,
  applyContentCaching,
  type CachedContent,
  cacheControlOf,
  etagMatches,
} from './plugins/content-caching.ts'
export {
  failureFromError,
  handleError,
  httpStatuses,
  httpStatusOf,
  problemBody,
  problemMediaType,
  RefusalError,
  sendFailure,
} from './plugins/problem.ts'
export {
  type Counters,
  countersFor,
  defaultRateLimit,
  type RateLimitSettings,
  registerRateLimit,
  sharedCounterOptions,
} from './plugins/rate-limit.ts'
export { requestIdOf } from './plugins/request-id.ts'
export { type AuditPruning, type PruneLog, startAuditPruning } from './retention.ts'
