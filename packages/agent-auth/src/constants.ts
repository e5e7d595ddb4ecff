/**
 * How long the layer's artefacts live, in seconds (auth-md.md §4, stricter than the reference):
 * an unclaimed agent's tokens are short; a claimed agent refreshes through its identity assertion.
 */
export const agentLifetimes = {
  /** An anonymous agent's pre-claim access token (never past the claim window). */
  preClaimTokenSeconds: 900,
  /** A claimed agent's access token. */
  postClaimTokenSeconds: 3600,
  /** An anonymous agent's identity assertion (never past the claim window). */
  anonymousAssertionSeconds: 3600,
  /** The claim window: the claim token, and every unclaimed credential, die after it. */
  claimWindowSeconds: 86_400,
  /** A user code, from the moment it is issued. */
  userCodeSeconds: 600,
  /** A claimed agent's identity assertion (the claim grant returns it): exchanged for fresh tokens. */
  postClaimAssertionSeconds: 2_592_000,
  /** The first polling interval of the claim grant (RFC 8628 §3.2); each `slow_down` adds 5. */
  pollIntervalSeconds: 5,
} as const

/** The two grant types this layer adds to `/oauth2/token` (plus an alias generic auth.md clients send). */
export const agentGrantTypes = {
  /** Exchanges a claimed registration's claim token, once (Quire's profile URN). */
  claim: 'urn:service:params:oauth:grant-type:claim_token',
  /** The reference profile's name of the claim grant, accepted so that generic auth.md clients work. */
  claimAlias: 'urn:workos:agent-auth:grant-type:claim',
  /** RFC 7523: exchanges an identity assertion for an access token. */
  jwtBearer: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
} as const

/** The paths of the layer, all on the web origin. */
export const agentPaths = {
  document: '/auth.md',
  identity: '/agent/identity',
  claim: '/agent/identity/claim',
  scopeRequest: '/agent/identity/scopes',
  claimPage: '/agent/claim',
  token: '/oauth2/token',
  revoke: '/oauth2/revoke',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
  mcp: '/mcp',
} as const

/** The registration types, in the order discovery lists them. */
export const agentTypes = ['service_auth', 'anonymous'] as const
