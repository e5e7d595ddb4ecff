import { listAuditEvents } from '@quire/core'
import { type Handler, reply } from '../handler.ts'

export const auditHandlers: { listAuditEvents: Handler<'listAuditEvents'> } = {
  listAuditEvents: async ({ query }, { deps, caller }) => reply(await listAuditEvents(deps, caller, query)),
}
