import {
  acceptInvitation,
  createInvitation,
  createWorkspace,
  listInvitations,
  listWorkspaceAuditEvents,
  listWorkspaceMembers,
  listWorkspaceProjects,
  listWorkspaces,
  revokeInvitation,
} from '@quire/core'
import { type Handler, idempotencyKey, reply, written } from '../handler.ts'

type WorkspaceOps =
  | 'listWorkspaces'
  | 'createWorkspace'
  | 'listWorkspaceMembers'
  | 'listWorkspaceProjects'
  | 'listWorkspaceAuditEvents'
  | 'createInvitation'
  | 'listInvitations'
  | 'revokeInvitation'
  | 'acceptInvitation'

export const workspaceHandlers: { [K in WorkspaceOps]: Handler<K> } = {
  listWorkspaces: async ({ query }, { deps, caller }) => reply(await listWorkspaces(deps, caller, query)),
  createWorkspace: async ({ body }, { deps, caller, headers }) =>
    written(await createWorkspace(deps, caller, body, idempotencyKey(headers)), (workspace) => ({
      location: `/api/workspaces/${workspace.id}`,
    })),
  listWorkspaceMembers: async ({ params, query }, { deps, caller }) =>
    reply(await listWorkspaceMembers(deps, caller, params.workspaceId, query)),
  listWorkspaceProjects: async ({ params, query }, { deps, caller }) =>
    reply(await listWorkspaceProjects(deps, caller, params.workspaceId, query)),
  listWorkspaceAuditEvents: async ({ params, query }, { deps, caller }) =>
    reply(await listWorkspaceAuditEvents(deps, caller, params.workspaceId, query)),
  createInvitation: async ({ params, body }, { deps, caller, headers }) =>
    written(await createInvitation(deps, caller, params.workspaceId, body, idempotencyKey(headers)), (invitation) => ({
      location: `/api/workspaces/${invitation.workspaceId}/invitations`,
    })),
  listInvitations: async ({ params, query }, { deps, caller }) => reply(await listInvitations(deps, caller, params.workspaceId, query)),
  revokeInvitation: async ({ params }, { deps, caller }) => reply(await revokeInvitation(deps, caller, params.invitationId)),
  acceptInvitation: async ({ params }, { deps, caller }) => reply(await acceptInvitation(deps, caller, params.invitationId)),
}
