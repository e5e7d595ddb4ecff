import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { scopes } from '@quire/core'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { ContractComponents } from './openapi-components.ts'

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
 * `/openapi.json` with a browsable page at `/docs`. The contract's object schemas are named once
 * under `components.schemas` and referred to with `$ref` (openapi-components.ts says how, without
 * changing what the routes validate).
 */
export async function registerOpenApi(app: FastifyInstance, options: { version: string; serverUrl?: string }): Promise<void> {
  const components = new ContractComponents()
  // Shared schemas for the document only: the validator compiler compiles each route's own inline schemas.
  for (const schema of components.sharedSchemas()) app.addSchema(schema)
  await app.register(swagger, {
    // A shared schema's component is named by its `$id` (not `def-N`).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => ({
      schema: schema && (components.routeSchema(schema as Record<string, unknown>) as FastifySchema),
      url,
    }),
    transformObject: (document) => components.finishDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject),
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
