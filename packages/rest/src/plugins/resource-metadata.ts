import { oauthServerConfig } from '@quire/core'
import type { Runtime } from '@quire/runtime'
import { discoveryDocuments } from '@quire/runtime'
import type { FastifyInstance, FastifyReply } from 'fastify'

/** Discovery is for clients on any origin, and changes only with a deployment. */
function discoverable(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300')
}

/**
 * The API as an OAuth protected resource (RFC 9728): its metadata names the authorization server
 * (the web app), and every Bearer challenge points at it, so a client holding no valid token can
 * find where to get one. The authorization server's metadata and, when the agent layer is on,
 * `/auth.md` are served here too, so an agent that knows only the API's address finds its way.
 */
export function registerResourceMetadata(app: FastifyInstance, runtime: Pick<Runtime, 'deps' | 'agentAuth'>): void {
  const config = oauthServerConfig(runtime.deps.config)
  const documents = discoveryDocuments(runtime)
  const path = '/.well-known/oauth-protected-resource'
  app.decorate('resourceMetadataUrl', `${config.defaultResource}${path}`)
  const resource = documents.protectedResource(config.defaultResource)
  app.get(path, { schema: { hide: true } }, async (_request, reply) => {
    discoverable(reply)
    return resource
  })
  app.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, async (_request, reply) => {
    discoverable(reply)
    return documents.authorizationServer
  })
  const authMd = documents.authMd
  if (authMd !== null) {
    app.get('/auth.md', { schema: { hide: true } }, async (_request, reply) =>
      discoverable(reply).type('text/markdown; charset=utf-8').send(authMd),
    )
  }
}
