import { checkArtifactSlug, createArtifact, deleteArtifact, getArtifact, listMyArtifacts, previewArtifactUrl } from '@quire/core'
import { type Handler, idempotencyKey, reply, written } from '../handler.ts'

type ArtifactOps =
  | 'createArtifact'
  | 'listMyArtifacts'
  | 'getArtifact'
  | 'deleteArtifact'
  | 'checkArtifactSlug'
  | 'previewArtifactUrl'
  | 'resolveArtifactPath'

export const artifactHandlers: { [K in ArtifactOps]: Handler<K> } = {
  createArtifact: async ({ body }, { deps, caller, headers }) =>
    written(await createArtifact(deps, caller, body, idempotencyKey(headers)), (artifact) => ({
      location: `/api/artifacts/${artifact.id}`,
    })),
  listMyArtifacts: async ({ query }, { deps, caller }) => reply(await listMyArtifacts(deps, caller, query)),
  getArtifact: async ({ params }, { deps, caller }) => reply(await getArtifact(deps, caller, { id: params.artifactId })),
  deleteArtifact: async ({ params }, { deps, caller }) => reply(await deleteArtifact(deps, caller, params.artifactId)),
  checkArtifactSlug: async ({ params }, { deps, caller }) => reply(await checkArtifactSlug(deps, caller, params)),
  previewArtifactUrl: async ({ params }, { deps, caller }) => reply(await previewArtifactUrl(deps, caller, params)),
  resolveArtifactPath: async ({ params }, { deps, caller }) =>
    reply(await getArtifact(deps, caller, { owner: params.owner, projectSlug: params.projectSlug, slug: params.slug })),
}
