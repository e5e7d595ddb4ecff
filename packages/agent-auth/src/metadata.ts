import { agentGrantTypes, agentPaths } from './constants.ts'
import type { AgentContext } from './context.ts'

/** The registration types this deployment accepts: `anonymous` only when pre-claim scopes are configured. */
export function enabledTypes(ctx: AgentContext): ('service_auth' | 'anonymous')[] {
  return ctx.settings.preClaimScopes.length > 0 ? ['service_auth', 'anonymous'] : ['service_auth']
}

/**
 * What the layer adds to discovery: the grant types to append to the authorization server's
 * `grant_types_supported`, and the `agent_auth` block for both metadata documents (RFC 8414 and
 * RFC 9728).
 */
export function authorizationServerAdditions(ctx: AgentContext): { grantTypes: string[]; agentAuth: Record<string, unknown> } {
  const at = (path: string) => `${ctx.urls.webUrl}${path}`
  return {
    grantTypes: [agentGrantTypes.jwtBearer, agentGrantTypes.claim],
    agentAuth: {
      skill: at(agentPaths.document),
      identity_endpoint: at(agentPaths.identity),
      claim_endpoint: at(agentPaths.claim),
      scope_request_endpoint: at(agentPaths.scopeRequest),
      // DELETE with the agent's own bearer credential ends its registration.
      identity_revocation_endpoint: at(agentPaths.identity),
      identity_types_supported: enabledTypes(ctx),
    },
  }
}
