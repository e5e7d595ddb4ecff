import { type AgentSelfCredential, type AuditEventDraft, secretPrefixes } from '@quire/core'
import { verifyAssertion } from './assertion.ts'
import type { AgentContext } from './context.ts'
import { agentFail, agentOk } from './errors.ts'
import { agentEvent } from './events.ts'
import type { AgentReply } from './types.ts'

/**
 * The credential a presented secret is, when it can be one: an agent access token (by its
 * prefix), or an identity assertion this server signed and that has not expired. Null otherwise.
 */
async function selfCredential(ctx: AgentContext, secret: string, now: Date): Promise<AgentSelfCredential | null> {
  const { deps } = ctx
  if (secret.startsWith(secretPrefixes.agentToken)) return { kind: 'token', secretHash: await deps.sha256(secret) }
  const verified = await verifyAssertion(ctx.settings.signingKey, ctx.issuer, secret, now)
  if (!verified.ok) return null
  return { kind: 'assertion', registrationId: verified.claims.registrationId, assertionIdHash: await deps.sha256(verified.claims.jti) }
}

/**
 * Ends the registration holding `credential`: revoked, every token of it dead, the assertion too.
 * A claimed agent's end is `agent.revoked` on its person's trail, the agent as the actor (the token
 * it used as the credential; none for the assertion, which has no id); an unclaimed agent acts for
 * nobody, so nothing is filed. Null when no live registration holds the credential.
 */
async function endRegistration(ctx: AgentContext, credential: AgentSelfCredential, at: Date) {
  const { deps } = ctx
  const outcome = await deps.agents.revokeSelf({
    credential,
    at,
    audit: (registration, owner, tokenId): AuditEventDraft | null =>
      owner === null ? null : agentEvent(ctx, 'agent.revoked', registration, owner, tokenId, at, { reason: 'revoked_by_agent' }),
  })
  return outcome.ok ? outcome.registration : null
}

/**
 * `DELETE /agent/identity`: the agent ends its own registration with `Authorization: Bearer` and
 * one of its live access tokens (claimed or not) or its current identity assertion. No scope is
 * needed. 200 `{registration_id, status: "revoked"}`; anything that is not such a credential is
 * 401 `invalid_token`, and so is a second call (its credential died with the first).
 */
export async function revokeIdentity(ctx: AgentContext, bearer: string | null): Promise<AgentReply> {
  const refuse = (why: string) => agentFail('selfRevoke', 'invalid_token', why)
  if (bearer === null || bearer === '') {
    return refuse('Send your access token or identity assertion as `Authorization: Bearer <credential>`.')
  }
  const now = ctx.deps.clock.now()
  const credential = await selfCredential(ctx, bearer, now)
  if (credential === null) return refuse('The credential is not an access token or a valid identity assertion of this server.')
  const registration = await endRegistration(ctx, credential, now)
  if (registration === null) {
    return refuse('No live registration holds this credential: it is unknown, expired or replaced, or the registration is revoked already.')
  }
  return agentOk({ registration_id: registration.id, status: 'revoked' })
}

/**
 * `/oauth2/revoke` with an identity assertion of this server: ends its registration as
 * `DELETE /agent/identity` does. True when the token verified as an assertion (whether or not it
 * was still the registration's current one: RFC 7009 answers the same either way), false when it is
 * not one (then it may be an access token).
 */
export async function revokeByAssertion(ctx: AgentContext, token: string): Promise<boolean> {
  if (token.startsWith(secretPrefixes.agentToken)) return false
  const now = ctx.deps.clock.now()
  const credential = await selfCredential(ctx, token, now)
  if (credential === null) return false
  await endRegistration(ctx, credential, now)
  return true
}
