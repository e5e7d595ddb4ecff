import { createShareLink, getArtifactAccess, listShareLinks, revokeShareLink, updateArtifactAccess } from '@quire/core'
import { type Handler, idempotencyKey, reply, written } from '../handler.ts'

type SharingOps = 'getArtifactAccess' | 'updateArtifactAccess' | 'createShareLink' | 'listShareLinks' | 'revokeShareLink'

export const sharingHandlers: { [K in SharingOps]: Handler<K> } = {
  getArtifactAccess: async ({ params }, { deps, caller }) => reply(await getArtifactAccess(deps, caller, params.artifactId)),
  updateArtifactAccess: async ({ params, body }, { deps, caller }) =>
    reply(await updateArtifactAccess(deps, caller, params.artifactId, body)),
  createShareLink: async ({ params, body }, { deps, caller, headers }) =>
    written(await createShareLink(deps, caller, params.artifactId, body, idempotencyKey(headers)), (link) => ({
      location: `/api/artifacts/${link.artifactId}/share-links`,
      'cache-control': 'no-store',
    })),
  listShareLinks: async ({ params, query }, { deps, caller }) => reply(await listShareLinks(deps, caller, params.artifactId, query)),
  revokeShareLink: async ({ params }, { deps, caller }) => reply(await revokeShareLink(deps, caller, params.shareLinkId)),
}
