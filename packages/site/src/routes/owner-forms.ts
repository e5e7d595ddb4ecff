import { webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import type { FastifyInstance } from 'fastify'
import type { ArtifactPathParams } from './artifact-request.ts'
import { createLink, deleteConfirmed, revokeLink, saveAccess, showDelete, showSettings } from './owner-settings.ts'
import { editBodyLimit, restore, saveEdit, showEdit } from './owner-versions.ts'

/**
 * An owner's forms: in the browser, without script, what the REST API does. Each post runs its
 * operation through `operate()` (the operation's schemas, the same use-case, `decide()` and audit
 * write as REST) and answers Post/Redirect/Get with a fixed notice; a form that cannot be saved
 * comes back with the person's input and what was wrong. The sessions hook has refused every post
 * without the session's CSRF token before these run.
 *
 * | Page or form                         | Operation                                       |
 * |--------------------------------------|-------------------------------------------------|
 * | GET/POST …/edit                      | appendVersion (409: the diff missed, text kept) |
 * | POST …/restore                       | restoreVersion                                  |
 * | GET/POST …/delete                    | deleteArtifact (after typing the slug)          |
 * | GET …/settings                       | getArtifactAccess, listShareLinks               |
 * | POST …/settings/access               | updateArtifactAccess                            |
 * | POST …/settings/share-links          | createShareLink (the URL shown once)            |
 * | POST …/settings/share-links/:id/revoke | revokeShareLink                               |
 */
export function registerOwnerFormRoutes(app: FastifyInstance, options: { runtime: Runtime }): void {
  const { runtime } = options
  type Path = { Params: ArtifactPathParams }
  app.get<Path>(webRoutes.edit.pattern, (request, reply) => showEdit(runtime, request, reply))
  app.post<Path>(webRoutes.edit.pattern, { bodyLimit: editBodyLimit(runtime) }, (request, reply) => saveEdit(runtime, request, reply))
  app.post<Path>(webRoutes.restore.pattern, (request, reply) => restore(runtime, request, reply))
  app.get<Path>(webRoutes.delete.pattern, (request, reply) => showDelete(runtime, request, reply))
  app.post<Path>(webRoutes.delete.pattern, (request, reply) => deleteConfirmed(runtime, request, reply))
  app.get<Path>(webRoutes.artifactSettings.pattern, (request, reply) => showSettings(runtime, request, reply))
  app.post<Path>(webRoutes.artifactAccess.pattern, (request, reply) => saveAccess(runtime, request, reply))
  app.post<Path>(webRoutes.shareLinks.pattern, (request, reply) => createLink(runtime, request, reply))
  app.post<{ Params: ArtifactPathParams & { id: string } }>(webRoutes.shareLinkRevoke.pattern, (request, reply) =>
    revokeLink(runtime, request, reply),
  )
}
