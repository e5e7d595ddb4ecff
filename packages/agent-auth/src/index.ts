/**
 * `@quire/agent-auth`: the agent registration layer (auth.md). An agent registers
 * (`service_auth` naming its person, or `anonymous`), the person confirms the claim in a signed-in
 * session, and the agent exchanges its claim token or identity assertion for scoped access tokens
 * at the token endpoint. Use-cases over `@quire/core`'s ports; no HTTP inside (the web app wires
 * the routes, rate limits and headers).
 */
import type { CoreDeps } from '@quire/core'
import { claimView, confirmClaim, requestClaim } from './claim.ts'
import { contextOf } from './context.ts'
import { authDocument } from './document.ts'
import { token } from './grants.ts'
import { authorizationServerAdditions } from './metadata.ts'
import { register } from './register.ts'
import { revoke } from './revoke.ts'
import { requestMoreScopes } from './scopes.ts'
import { revokeIdentity } from './self-revoke.ts'
import type { AgentAuth, AgentAuthSettings, AgentAuthUrls } from './types.ts'

export { agentGrantTypes, agentLifetimes, agentPaths } from './constants.ts'
export { type AgentEndpoint, type AgentErrorCode, type AgentErrorInfo, agentErrors } from './errors.ts'
export { normaliseEmail } from './input.ts'
export { type AgentAuthEnv, agentAuthDefaults, parseAgentAuthSettings } from './settings.ts'
export type {
  AgentAuth,
  AgentAuthSettings,
  AgentAuthUrls,
  AgentForm,
  AgentReply,
  ClaimRegistration,
  ClaimView,
  ClaimViewer,
  ConfirmOutcome,
} from './types.ts'
export { normaliseUserCode } from './user-code.ts'

/**
 * The layer for one deployment. Every time comes from `deps.clock`, every id from `deps.ids`,
 * every stored secret is `deps.sha256` of it; state lives in `deps.agents`. The document is built
 * once (it depends only on the settings and the addresses).
 */
export function createAgentAuth(deps: CoreDeps, settings: AgentAuthSettings, urls: AgentAuthUrls): AgentAuth {
  const ctx = contextOf(deps, settings, urls)
  let document: string | null = null
  return {
    settings,
    register: (body) => register(ctx, body),
    requestClaim: (body) => requestClaim(ctx, body),
    requestScopes: (accessToken, body) => requestMoreScopes(ctx, accessToken, body),
    claimView: (userCode, viewer) => claimView(ctx, userCode, viewer),
    confirmClaim: (userCode, viewer) => confirmClaim(ctx, userCode, viewer),
    token: (form) => token(ctx, form),
    revoke: (form) => revoke(ctx, form),
    revokeIdentity: (bearer) => revokeIdentity(ctx, bearer),
    authorizationServerAdditions: () => authorizationServerAdditions(ctx),
    document: () => {
      document ??= authDocument(ctx)
      return document
    },
  }
}
