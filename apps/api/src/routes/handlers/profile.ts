import { getProfile, listMyInvitations, updateProfile } from '@quire/core'
import { type Handler, reply } from '../handler.ts'

type ProfileOps = 'getProfile' | 'updateProfile' | 'listMyInvitations'

export const profileHandlers: { [K in ProfileOps]: Handler<K> } = {
  getProfile: async (_input, { deps, caller }) => reply(await getProfile(deps, caller)),
  updateProfile: async ({ body }, { deps, caller }) => reply(await updateProfile(deps, caller, body)),
  listMyInvitations: async ({ query }, { deps, caller }) => reply(await listMyInvitations(deps, caller, query)),
}
