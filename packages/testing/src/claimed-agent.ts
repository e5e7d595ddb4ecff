import { type AuditEventDraft, type CoreDeps, generatedAgentName, newSecret, type Scope, secretPrefixes } from '@quire/core'

/** The letters of a user code (RFC 8628 §6.1). */
const codeLetters = 'BCDFGHJKLMNPQRSTVWXZ'

/**
 * An agent registered in a person's name, claimed by them and holding a post-claim token, made
 * through the store as the registration, the claim page and the claim grant make it, for the
 * tests that need an agent to list, use or revoke without running the protocol.
 */
export async function claimedAgent(
  deps: CoreDeps,
  person: { readonly userId: string; readonly email: string },
  scopes: readonly Scope[] = ['artifacts:read'],
  /** Its name; absent, the one a registration without a name gets. */
  name?: string,
): Promise<{ readonly id: string; readonly token: string }> {
  const { agents, ids, sha256 } = deps
  const at = deps.clock.now()
  const later = (seconds: number) => new Date(at.getTime() + seconds * 1000)
  const id = ids.next('agt')
  const claimToken = await newSecret(secretPrefixes.claimToken)
  const userCode = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => codeLetters[b % codeLetters.length]).join('')
  const event =
    (action: AuditEventDraft['action']) =>
    (_: unknown, owner: { id: string; username: string; personalWorkspaceId: string }): AuditEventDraft => ({
      id: ids.next('evt'),
      at,
      action,
      actor: { kind: 'user', id: owner.id, label: owner.username },
      via: { surface: 'web', credential: null, credentialId: null },
      workspaceId: owner.personalWorkspaceId,
      artifactId: null,
      data: { agentId: id, type: 'service_auth', scopes },
    })
  const created = await agents.createRegistration({
    id,
    type: 'service_auth',
    name: name ?? generatedAgentName(id),
    description: null,
    loginHint: person.email,
    preClaimScopes: [],
    postClaimScopes: scopes,
    claimTokenHash: claimToken.hash,
    claimExpiresAt: later(86_400),
    userCode: { hash: await sha256(userCode), expiresAt: later(600) },
    assertionIdHash: null,
    pollIntervalSeconds: 5,
    at,
    audit: null,
  })
  if (!created.ok) throw new Error(`registration: ${created.reason}`)
  const confirmed = await agents.confirmClaim({
    userCodeHash: await sha256(userCode),
    userId: person.userId,
    at,
    audit: event('agent.claimed'),
  })
  if (!confirmed.ok) throw new Error(`${person.email} could not claim the test agent`)
  const token = await newSecret(secretPrefixes.agentToken)
  const redeemed = await agents.redeemClaim({
    claimTokenHash: claimToken.hash,
    token: { id: ids.next('tok'), secretHash: token.hash, displayPrefix: token.display, scopes, expiresAt: later(3600) },
    assertionIdHash: await sha256(crypto.randomUUID()),
    at,
    audit: event('agent.token_issued'),
  })
  if (!redeemed.ok) throw new Error('the claim token was not redeemed')
  return { id, token: token.secret }
}
