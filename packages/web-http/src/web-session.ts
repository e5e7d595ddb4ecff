import type { Principal, PrincipalUser } from '@quire/core'

/**
 * What a request's session is: the signed-in person behind its session cookie, as the sessions
 * hook (sessions.ts) sets it on `request.session`. Types only, so that whatever reads the
 * session (the caller a page acts as, the visitor a page shows) does not import the hook.
 */
export interface WebSession {
  /** As the use-cases take it (kind `session`, all of the user's rights). */
  readonly principal: Principal
  readonly user: PrincipalUser
  readonly credentialId: string
  /** The cookie's secret, to end the session with. */
  readonly secret: string
  /** What this session's forms must send back (`_csrf`) with every unsafe request. */
  readonly csrfToken: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on routes that take sessions (all but those with `config: { session: false }`). */
    session: WebSession | null
  }
}
