import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { scopes } from '@quire/core'
import type { FastifyInstance } from 'fastify'

/**
 * The page at /docs is the one HTML document the API serves: it loads its own scripts, styles and
 * images (Swagger UI sets inline styles) and calls the API ("Try it out"), and nothing else. It
 * replaces the API's `default-src 'none'` on the /docs routes only.
 */
function docsContentSecurityPolicy(serverUrl: string | undefined): string {
  const api = serverUrl && URL.canParse(serverUrl) ? ` ${new URL(serverUrl).origin}` : ''
  return [
    "default-src 'none'",
    "base-uri 'none'",
    `connect-src 'self'${api}`,
    "font-src 'self' data:",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "img-src 'self' data:",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
  ].join('; ')
}

/**
 * OpenAPI 3.1, generated from the same route schemas the operation table produced, served at
 * `/openapi.json` with a browsable page at `/docs`.
 */
export async function registerOpenApi(app: FastifyInstance, options: { version: string; serverUrl?: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quire API',
        version: options.version,
        description:
          'Versioned artifacts for people and AI agents. Errors are RFC 9457 problem details with a stable `code`. ' +
          `Bearer credentials carry scopes: ${scopes.map((s) => `\`${s}\``).join(', ')}; each operation names the one it needs.`,
      },
      ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`qk_…`), an OAuth access token or an agent token.' },
        },
      },
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No call to the public swagger.io validator (the CSP would refuse it anyway).
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    staticCSP: docsContentSecurityPolicy(options.serverUrl),
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
