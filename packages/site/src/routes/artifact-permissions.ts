import { type ArtifactPermissionAction, type ArtifactPermissions, getArtifactPermissions } from '@quire/core'
import { signInPath, type Visitor } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom, webCaller, webDeps } from '@quire/web-http'
import type { FastifyReply } from 'fastify'
import { refuseAction, refuseArtifact } from './artifact-refusals.ts'
import type { PathRequest } from './artifact-request.ts'

/**
 * Who may do what on the owner's pages and forms: sign-in first, then the artifact of the path
 * with what the person may do with it (the one policy, through `getArtifactPermissions`).
 */

/** The artifact of the path as the caller may read it, and what else the caller may do; null once refused. */
export async function loadPermissions(runtime: Runtime, request: PathRequest, reply: FastifyReply): Promise<ArtifactPermissions | null> {
  const { owner, project, slug } = request.params
  const result = await getArtifactPermissions(webDeps(runtime.deps, request), webCaller(request), { owner, projectSlug: project, slug })
  if (result.ok) return result.value
  refuseArtifact(request, reply, result.error)
  return null
}

/** The signed-in person on a form's page or post: who the header names, and the token the forms send back. */
export interface Person {
  readonly visitor: Visitor
  readonly csrfToken: string
}

/** Who may act, and the artifact with what they may do with it. */
export interface Permitted {
  readonly person: Person
  readonly permissions: ArtifactPermissions
}

/**
 * The artifact of the path, when the signed-in person may take `action` on it; else null, once
 * answered: a signed-out person opening a page goes to sign in and comes back, any other refusal
 * is the one the action's operation gives.
 */
export async function permitted(
  runtime: Runtime,
  request: PathRequest,
  reply: FastifyReply,
  action: ArtifactPermissionAction,
): Promise<Permitted | null> {
  const session = request.session
  if (session === null) {
    // A page sends the person to sign in first; a post without a session is answered as the
    // operation answers anonymous callers (nothing to return to).
    if (request.method === 'GET') {
      reply.redirect(signInPath(request.url), 303)
      return null
    }
  }
  const permissions = await loadPermissions(runtime, request, reply)
  if (permissions === null) return null
  const refusal = permissions.refusals[action]
  if (refusal) {
    refuseAction(request, reply, refusal)
    return null
  }
  if (session === null) {
    // Only reachable when the policy lets anonymous callers act, which it never does for these actions.
    refuseAction(request, reply, { code: 'unauthenticated', message: 'Sign in first.' })
    return null
  }
  return {
    person: { visitor: visitorFrom(session), csrfToken: session.csrfToken },
    permissions,
  }
}
