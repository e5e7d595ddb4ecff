import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify'
import type { Runtime } from './container.ts'
import { registerOpenApi } from './plugins/openapi.ts'
import { handleError, handleNotFound } from './plugins/problem.ts'
import { validatorCompiler } from './plugins/validation.ts'
import { handlers } from './routes/handlers/index.ts'
import { registerOperations } from './routes/register.ts'

export interface AppOptions {
  readonly logger?: FastifyServerOptions['logger']
  /** Log every request and response (access log). */
  readonly logRequests?: boolean
  readonly serverUrl?: string
}

const requestIdPattern = /^[A-Za-z0-9._:-]{8,128}$/

/**
 * Builds the API: routes from the operation table, problem+json errors, OpenAPI. The app holds
 * no state of its own; everything lives in the runtime's database.
 */
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // By default a request is logged when it fails (see the error handler), not twice per
    // success: per-request logging costs about a tenth of a read's CPU (bench/api).
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    bodyLimit: Math.max(runtime.deps.config.limits.contentBytes * 8, 1024 * 1024),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id']
      return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID()
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Errors Fastify raises before routing (a malformed URL, a bad content type) get the same
    // problem+json treatment as everything else.
    frameworkErrors: (error, request, reply) => {
      handleError(error, request, reply)
    },
  })
  app.setValidatorCompiler(validatorCompiler)
  // Replies are built from explicit DTOs, so schema-driven serialisation buys no safety here, and
  // native JSON.stringify is several times faster on the long strings Quire serves (content, diffs).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  app.setErrorHandler(handleError)
  app.setNotFoundHandler(handleNotFound)
  await registerOpenApi(app, { version: runtime.deps.config.version, ...(options.serverUrl ? { serverUrl: options.serverUrl } : {}) })
  registerOperations(app, runtime, handlers)
  return app
}
