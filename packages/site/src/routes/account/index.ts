import type { Runtime } from '@quire/runtime'
import type { FastifyInstance } from 'fastify'
import { registerAgentRoutes } from './agents.ts'
import { registerAuditRoutes } from './audit.ts'
import { registerKeyRoutes } from './keys.ts'
import { registerProfileRoutes } from './profile.ts'
import { registerWorkspaceRoutes } from './workspaces.ts'

/**
 * The account pages, for the signed-in person only: profile and username, API keys, the agents
 * they claimed, workspaces with their members and invitations, invitations addressed to the
 * person, and the audit trails of the account, a workspace and an artifact. Every read and every
 * form runs an operation of the contract through `operate()`: the same use-case, `decide()` and
 * audit write as the REST call.
 */
export function registerAccountRoutes(app: FastifyInstance, options: { runtime: Runtime; apiUrl: string | null }): void {
  registerProfileRoutes(app, options.runtime, options.apiUrl)
  registerKeyRoutes(app, options.runtime)
  registerAgentRoutes(app, options.runtime)
  registerWorkspaceRoutes(app, options.runtime)
  registerAuditRoutes(app, options.runtime)
}
