import { checkProjectSlug, createProject, listMyProjects, resolveProjectPath } from '@quire/core'
import { type Handler, idempotencyKey, reply, written } from '../handler.ts'

type ProjectOps = 'createProject' | 'listMyProjects' | 'checkProjectSlug' | 'resolveProjectPath'

export const projectHandlers: { [K in ProjectOps]: Handler<K> } = {
  createProject: async ({ body }, { deps, caller, headers }) => written(await createProject(deps, caller, body, idempotencyKey(headers))),
  listMyProjects: async ({ query }, { deps, caller }) => reply(await listMyProjects(deps, caller, query)),
  checkProjectSlug: async ({ params }, { deps, caller }) => reply(await checkProjectSlug(deps, caller, params)),
  resolveProjectPath: async ({ params }, { deps, caller }) => reply(await resolveProjectPath(deps, caller, params)),
}
