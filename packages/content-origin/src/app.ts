import { openPreview } from '@quire/core'
import type { Runtime } from '@quire/runtime'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyServerOptions, LogController } from 'fastify'
import { contentAssets } from './assets.ts'
import { contentDocuments } from './documents.ts'

export interface ContentAppOptions {
  /** The web app's origin: the only page that may frame what this serves, and the only one its frames talk to. */
  readonly webUrl: string
  readonly logger?: FastifyServerOptions['logger']
  readonly logRequests?: boolean
}

/** Headers on every answer: never sniffed, never sending a Referer, never indexed. No cookie is ever set or read here. */
const everywhere = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'cross-origin-opener-policy': 'same-origin',
} as const

const notFoundPolicy = "default-src 'none'; frame-ancestors 'none'; sandbox"

/**
 * The content origin (CONTENT_URL): HTML, SVG and Mermaid artifacts, rendered, for whoever holds a
 * capability the web app or the API minted for a reader (`/d/<capability>`), and the scripts and
 * stylesheet those documents load (`/assets/…`). It has no session and no credential but the
 * capability, so the browser's cookies for the web app are worthless here, and in production it
 * is another site, so they are not even sent.
 */
export async function buildContentApp(runtime: Runtime, options: ContentAppOptions): Promise<FastifyInstance> {
  const previews = runtime.deps.previews
  if (!previews) throw new Error('The content origin needs CONTENT_URL (it is off).')
  const webUrl = new URL(options.webUrl).origin
  const assets = contentAssets()
  const documentOf = contentDocuments({ contentUrl: previews.origin, webUrl, assets })

  const app = Fastify({
    logger: options.logger ?? false,
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    forceCloseConnections: 'idle',
    // A capability is a signed token of about 200 characters, in one path segment.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 2048 },
  })
  const notFound = (reply: FastifyReply) =>
    reply
      .code(404)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', notFoundPolicy)
      .header('cross-origin-resource-policy', 'same-origin')
      .send('Not found. A rendered document is addressed by a link that expires; open it again from its page.\n')
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(everywhere)
  })
  app.setNotFoundHandler((_request, reply) => notFound(reply))
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error({ err: error }, 'content origin failed')
    return reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', notFoundPolicy)
      .send(status === 500 ? 'Something went wrong on our side.\n' : 'Bad request.\n')
  })

  app.get<{ Params: { token: string } }>('/d/:token', async (request, reply) => {
    const opened = await openPreview(runtime.deps, request.params.token)
    if (!opened.ok) return notFound(reply)
    const served = documentOf(opened.value)
    if (served === null) return notFound(reply)
    const doc = opened.value
    // A pinned version renders the same until our assets change: a strong validator of both.
    const etag = `"${doc.sha256}.${doc.type}${doc.diagram ?? ''}.${assets.version}"`
    reply
      .header('etag', etag)
      .header('cache-control', 'private, no-cache')
      .header('content-security-policy', served.policy)
      .header('cross-origin-resource-policy', served.resourcePolicy)
    if (request.headers['if-none-match'] === etag) return reply.code(304).send()
    return reply.type(served.type).send(served.body)
  })

  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const asset = assets.byPath.get(`/assets/${request.params.file}`)
    if (!asset) return notFound(reply)
    reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('vary', 'Accept-Encoding')
    if (/\bbr\b/.test(String(request.headers['accept-encoding'] ?? '')))
      return reply.header('content-encoding', 'br').send(await asset.brotli())
    return reply.send(asset.body)
  })

  app.get('/robots.txt', async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=86400').send('User-agent: *\nDisallow: /\n'),
  )
  return app
}
