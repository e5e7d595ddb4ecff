import { checkHealth } from '@quire/core'
import type { Runtime } from '@quire/server'
import type { FastifyInstance } from 'fastify'
import { signedInHome, signedOutHome } from '../pages/home.ts'
import { stylesheet, stylesheetPath } from '../pages/stylesheet.ts'
import { sendProblem } from '../plugins/problem.ts'

/** The front page, the stylesheet every page links, and the load balancer's probe. */
export function registerHomeRoutes(app: FastifyInstance, options: { runtime: Runtime; apiUrl: string | null; devSignIn: boolean }): void {
  app.get('/', async (request, reply) => {
    const page = request.session
      ? signedInHome({ user: request.session.user, csrfToken: request.session.csrfToken, apiUrl: options.apiUrl })
      : signedOutHome(options)
    // The page shows who is signed in and carries a CSRF token: never cached.
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page)
  })

  app.get(stylesheetPath, { config: { session: false } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(stylesheet),
  )

  // As the API's: 200 when the database answers, else a 503 problem.
  app.get('/health', { config: { session: false } }, async (_request, reply) => {
    const health = await checkHealth(options.runtime.deps)
    if (health.ok) return reply.header('cache-control', 'no-store').send(health.value)
    return sendProblem(reply.header('cache-control', 'no-store'), health.error.code, health.error.message)
  })
}
