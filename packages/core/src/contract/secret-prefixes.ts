/**
 * Prefixes of bearer secrets: they route a token to its verifier and make leaks easy to scan for.
 * Part of the contract, so that clients can recognise (and redact) a secret wherever it shows up.
 */
export const secretPrefixes = {
  apiKey: 'qk_',
  accessToken: 'qat_',
  refreshToken: 'qrt_',
  authorizationCode: 'qac_',
  session: 'qss_',
  shareLink: 'qsl_',
  /** An agent's access token (auth.md layer). */
  agentToken: 'qgt_',
  /** An agent registration's claim token: exchanged once, after a person confirmed the claim. */
  claimToken: 'qct_',
} as const
