/**
 * The REST API as a Fastify app (`buildApp`): a route for every row of the operation table, run
 * through its binding, inputs checked against the row's schemas, the OpenAPI document and the
 * protected-resource metadata, inside the HTTP edge of `@quire/http-edge`. It runs on a runtime of
 * `@quire/runtime`.
 */
export { type AppOptions, buildApp } from './app.ts'
