import type { FastifyInstance } from 'fastify'
import { signedInHome, signedOutHome } from '../pages/home.ts'
import { stylesheet, stylesheetPath } from '../pages/stylesheet.ts'

/** The front page, and the stylesheet every page links. */
export function registerHomeRoutes(app: FastifyInstance, options: { apiUrl: string | null; devSignIn: boolean }): void {
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
}
