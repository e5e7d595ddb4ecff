import { oauthServerConfig, protectedResourceMetadata } from '@quire/core'
import type { FastifyInstance } from 'fastify'

/**
 * The API as an OAuth protected resource (RFC 9728): its metadata names the authorization server
 * (the web app), and every Bearer challenge points at it, so a client holding no valid token can
 * find where to get one.
 */
export function registerResourceMetadata(app: FastifyInstance, urls: { readonly webUrl: string; readonly apiUrl: string }): void {
  const config = oauthServerConfig(urls)
  const path = '/.well-known/oauth-protected-resource'
  app.decorate('resourceMetadataUrl', `${config.defaultResource}${path}`)
  const body = protectedResourceMetadata(config, config.defaultResource)
  app.get(path, { schema: { hide: true } }, async (_request, reply) => {
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=3600')
    return body
  })
}
