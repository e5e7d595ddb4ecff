import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { scopes } from '@quire/core'
import type { FastifyInstance } from 'fastify'

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
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
