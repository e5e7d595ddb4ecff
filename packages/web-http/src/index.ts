/**
 * `@quire/web-http`: how the web app takes a request, before any route reads it and when one is
 * refused. Sessions (a signed cookie looked up on every request) with CSRF tokens for every unsafe
 * method; refusals as a page for a person, a problem for a script, RFC 6749's error for an OAuth
 * client; per-address limits and the budget of refused secrets; security headers; the rule that
 * every text input is well-formed; and the caller a request makes for the use-cases.
 */
export { handleError, handleNotFound, sendFailure, sendProblem } from './problem.ts'
export { addressOf, budget, registerWebRateLimit, webRateLimits } from './rate-limit.ts'
export { refuseMissedSecret } from './secret-misses.ts'
export { contentSecurityPolicy, registerSecurityHeaders } from './security-headers.ts'
export { registerSessions, type SessionCookies, sessionCookieName } from './sessions.ts'
export { tokenCaller, visitorFrom, visitorOf, webCaller, webDeps } from './web-caller.ts'
export type { WebSession } from './web-session.ts'
export { registerTextRule } from './well-formed-text.ts'
