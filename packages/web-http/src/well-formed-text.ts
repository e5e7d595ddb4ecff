import { illFormedText } from '@quire/core'
import { RefusalError } from '@quire/http-edge'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** The parts of a request the web app's routes read, as named in refusals (`/query/return_to`). */
function partsOf(request: FastifyRequest): [string, unknown][] {
  return [
    ['params', request.params],
    ['query', request.query],
    ['body', request.body],
  ]
}

/** A refusal by the text rule: the OAuth endpoints answer it with their own error code (`oauthInputError`). */
export class IllFormedTextError extends RefusalError {}

/**
 * Core's one text rule at the web edge: every path parameter, query parameter and form or JSON
 * field (names included) of every route must be well-formed Unicode without NUL. Checked once the
 * body is parsed and before any route (or the session lookup) reads it; a refusal is a 400
 * `validation_failed` naming the field, which the error handler answers as a page, a problem, or
 * on the OAuth client endpoints in RFC 6749's shape (problem.ts).
 */
export function registerTextRule(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of partsOf(request)) {
      const issues = illFormedText(value)
      const first = issues[0]
      if (!first) continue
      const errors = issues.map((issue) => ({ path: `/${part}${issue.path}`, message: issue.message }))
      throw new IllFormedTextError({ code: 'validation_failed', message: `/${part}${first.path} ${first.message}.`, errors })
    }
  })
}
