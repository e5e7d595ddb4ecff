import { authorizationServerMetadata, oauthServerConfig, protectedResourceMetadata } from '@quire/core'
import type { Runtime } from './container.ts'

/** The documents a client reads to find out how to get a token, the same on the API and the web origin. */
export interface Discovery {
  /** RFC 8414 metadata of the authorization server (the web origin), with the agent layer's grants and `agent_auth` when it is on. */
  readonly authorizationServer: Readonly<Record<string, unknown>>
  /** RFC 9728 metadata for one protected resource (the API, or `/mcp`), with `agent_auth` when the layer is on. */
  protectedResource(resource: string): Readonly<Record<string, unknown>>
  /** The `/auth.md` document for agents; null when the layer is off (the path is then a 404). */
  readonly authMd: string | null
}

/**
 * One derivation of the discovery documents for both apps: when the agent registration layer is
 * off, nothing in them mentions it (no `agent_auth`, no agent grant types).
 */
export function discoveryDocuments(runtime: Pick<Runtime, 'deps' | 'agentAuth'>): Discovery {
  const config = oauthServerConfig(runtime.deps.config)
  const base = authorizationServerMetadata(config)
  const agents = runtime.agentAuth?.authorizationServerAdditions() ?? null
  const authorizationServer =
    agents === null
      ? base
      : {
          ...base,
          grant_types_supported: [...base.grant_types_supported, ...agents.grantTypes],
          agent_auth: agents.agentAuth,
        }
  return {
    authorizationServer,
    protectedResource: (resource) => {
      const metadata = protectedResourceMetadata(config, resource)
      return agents === null ? metadata : { ...metadata, agent_auth: agents.agentAuth }
    },
    authMd: runtime.agentAuth?.document() ?? null,
  }
}
