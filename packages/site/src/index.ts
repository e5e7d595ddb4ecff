/**
 * `@quire/site`: the web app's own pages and forms as routes over the bindings and use-cases, the
 * web app's `/mcp`, and `buildWebApp`, which composes them with how a request is taken
 * (`@quire/web-http`) and how people and clients sign in (`@quire/sign-in`) into one Fastify app.
 * It reads no environment: apps/web turns its settings into `WebAppOptions`.
 */
export { buildWebApp, type WebAppOptions } from './app.ts'
export { hiddenOperations } from './hidden-operations.ts'
