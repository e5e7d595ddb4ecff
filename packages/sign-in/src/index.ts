/**
 * `@quire/sign-in`: how people, agents and clients get a credential from the web app. People sign
 * in through an OpenID Connect provider (the configured one, or the bundled development provider,
 * which refuses production) and get a session; the OAuth 2.1 authorization server gives CLI and
 * MCP clients tokens after the person's consent; agents register and are claimed (auth.md). It
 * sits below the site: it needs pages and sessions, and nothing of the site's routes.
 */
export { registerDevProvider } from './dev-oidc/mount.ts'
export {
  createDevProvider,
  type DevProvider,
  DevProviderRefused,
  devProviderInProduction,
  devProviderPath,
} from './dev-oidc/provider.ts'
export { registerOAuthRoutes } from './oauth/mount.ts'
export { type OidcClientSettings, relyingParty } from './oidc/relying-party.ts'
export { safeReturnTo } from './return-to.ts'
export { registerAgentRoutes } from './routes/agents.ts'
export { registerSignInRoutes } from './routes/sign-in.ts'
