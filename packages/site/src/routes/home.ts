import { framesScript, type HomeOverview, signedInHome, signedOutHome, stylesheet, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { sendProblem } from '@quire/web-http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { operate } from '../operate.ts'

/** How many rows each list of the signed-in home shows. */
const OVERVIEW_SIZE = 10

/**
 * The signed-in person's workspaces, projects and recently changed artifacts, through the same
 * bindings as the API (first page of each); null if any is refused, so the page still shows.
 */
async function overviewOf(runtime: Runtime, request: FastifyRequest): Promise<HomeOverview | null> {
  const first = { params: undefined, query: { limit: OVERVIEW_SIZE }, body: undefined }
  const [workspaces, projects, artifacts] = await Promise.all([
    operate(runtime, request, 'listWorkspaces', first),
    operate(runtime, request, 'listMyProjects', first),
    operate(runtime, request, 'listMyArtifacts', first),
  ])
  if (!workspaces.ok || !projects.ok || !artifacts.ok) return null
  // The list is newest first by creation; "recently changed" reads best by last change.
  const recent = [...artifacts.value.value.items].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
  return { workspaces: workspaces.value.value, projects: projects.value.value, artifacts: { ...artifacts.value.value, items: recent } }
}

/** The front page, the stylesheet every page links, and the load balancer's probe. */
export function registerHomeRoutes(app: FastifyInstance, options: { runtime: Runtime; apiUrl: string | null; devSignIn: boolean }): void {
  // The MCP URL the homes show is this web app's own origin (WEB_URL, as the runtime was configured), never one written in a page.
  const addresses = { webUrl: options.runtime.deps.config.webUrl, apiUrl: options.apiUrl }
  app.get(webRoutes.home.pattern, async (request, reply) => {
    const page = request.session
      ? signedInHome({
          ...addresses,
          user: request.session.user,
          csrfToken: request.session.csrfToken,
          now: options.runtime.deps.clock.now(),
          overview: await overviewOf(options.runtime, request),
        })
      : signedOutHome({ ...addresses, devSignIn: options.devSignIn })
    // The page shows who is signed in and carries a CSRF token: never cached.
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page)
  })

  app.get(webRoutes.stylesheet.pattern, { config: { session: false } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(stylesheet),
  )
  app.get(webRoutes.framesScript.pattern, { config: { session: false } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(framesScript),
  )

  // As the API's: 200 when the database answers, else a 503 problem.
  app.get(webRoutes.health.pattern, { config: { session: false } }, async (request, reply) => {
    const health = await operate(options.runtime, request, 'health', { params: undefined, query: undefined, body: undefined })
    if (health.ok) return reply.header('cache-control', 'no-store').send(health.value.value)
    return sendProblem(reply, health.error.code, health.error.message)
  })
}
