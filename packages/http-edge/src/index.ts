/**
 * The HTTP edge both apps answer with, so that the REST API and the web app fail, limit, cache and
 * protect alike: the problem+json mapping of failures (`httpStatuses`, `sendFailure`), the request
 * budgets and the failed-authentication limit, the one content-caching rule
 * (`applyContentCaching`), security headers and CORS, request ids, the caller of a request, and
 * draining on close.
 */
export { type AuthFailureLimiter, type AuthFailureSettings, defaultAuthFailures } from './auth-failures.ts'
export { callerOf } from './caller.ts'
export {
  ACCESS_CHANGE_SECONDS,
  applyContentCaching,
  type CachedContent,
  cacheControlOf,
  etagMatches,
} from './content-caching.ts'
export { registerEdge } from './edge.ts'
export { type EdgeOptions, edgeOptions, trustedProxies } from './edge-options.ts'
export {
  failureFromError,
  handleError,
  httpStatuses,
  httpStatusOf,
  problemBody,
  problemMediaType,
  RefusalError,
  sendFailure,
} from './problem.ts'
export {
  type Counters,
  countersFor,
  defaultRateLimit,
  type RateLimitSettings,
  registerRateLimit,
  sharedCounterOptions,
} from './rate-limit.ts'
export { requestIdOf } from './request-id.ts'
export { registerCors, securityHeaders } from './security.ts'
export { drainOnClose } from './shutdown.ts'
