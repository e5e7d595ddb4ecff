import type { AgentOwner, AgentRegistrationRecord, AuditEventDraft, Scope } from '@quire/core'
import { newAssertionId, signAssertion, verifyAssertion } from './assertion.ts'
import { agentGrantTypes, agentLifetimes, agentPaths } from './constants.ts'
import { type AgentContext, addSeconds, earliest, iso, liveScopes, newAgentToken, secondsUntil } from './context.ts'
import { agentFail, agentOk } from './errors.ts'
import { agentEvent } from './events.ts'
import { requestScopes } from './input.ts'
import { pendingScopes } from './scopes.ts'
import type { AgentForm, AgentReply } from './types.ts'

type TokenError = Parameters<typeof agentFail<'token'>>[1]
const fail = (code: TokenError, why: string) => agentFail('token', code, why)

/** `agent.token_issued`: a post-claim token, on the trail of the person the agent acts for. */
function tokenIssued(
  ctx: AgentContext,
  tokenId: string,
  grant: 'claim' | 'jwt-bearer',
  scopes: readonly Scope[],
  expiresAt: Date,
  at: Date,
) {
  return (registration: AgentRegistrationRecord, owner: AgentOwner): AuditEventDraft =>
    agentEvent(ctx, 'agent.token_issued', registration, owner, tokenId, at, {
      tokenId,
      grant,
      scopes: [...scopes],
      expiresAt: iso(expiresAt),
    })
}

/**
 * The claim grant: polled by the agent until the person confirms, then exchanged once for a
 * post-claim token and the post-claim identity assertion (30 days; exchanging it through
 * jwt-bearer is how a claimed agent refreshes).
 */
async function claimGrant(ctx: AgentContext, form: AgentForm): Promise<AgentReply> {
  const claimToken = form.claim_token
  if (typeof claimToken !== 'string' || claimToken === '') return fail('invalid_request', 'claim_token is required.')
  const { deps } = ctx
  const now = deps.clock.now()
  const claimTokenHash = await deps.sha256(claimToken)
  const registration = await deps.agents.findByClaimToken(claimTokenHash)
  if (registration === null) return fail('invalid_grant', 'The claim token is not valid.')
  if (registration.revokedAt !== null) return fail('invalid_grant', 'This agent was revoked.')
  if (registration.redeemedAt !== null) return fail('invalid_grant', 'The claim token was already exchanged (it is good once).')
  if (now.getTime() >= registration.claimExpiresAt.getTime()) {
    return fail('expired_token', `The claim window closed at ${iso(registration.claimExpiresAt)}: register again.`)
  }
  if (registration.claimedBy === null) {
    if ((await deps.agents.recordPoll(registration.id, now)) === 'slow_down') {
      return fail('slow_down', `You polled sooner than every ${registration.pollIntervalSeconds} seconds: add 5 seconds to your interval.`)
    }
    const codeExpiresAt = registration.userCodeExpiresAt
    if (codeExpiresAt !== null && now.getTime() < codeExpiresAt.getTime()) {
      return fail(
        'authorization_pending',
        `The person has not confirmed yet: poll again in ${registration.pollIntervalSeconds} seconds (the code expires at ${iso(codeExpiresAt)}).`,
      )
    }
    const claimUrl = `${ctx.urls.webUrl}${agentPaths.claim}`
    return fail(
      'expired_token',
      registration.loginHint === null
        ? `No claim was requested yet: POST ${claimUrl} with this claim_token and the person's email as login_hint.`
        : `The user code expired before the person confirmed: POST ${claimUrl} again for a new code.`,
    )
  }

  const scopes = liveScopes(ctx, registration, 'claimed')
  if (scopes.length === 0) return fail('invalid_scope', 'None of the scopes this agent registered for is allowed any more.')
  const tokenExpiresAt = addSeconds(now, agentLifetimes.postClaimTokenSeconds)
  const token = await newAgentToken(ctx, scopes, tokenExpiresAt)
  const jti = newAssertionId()
  const signed = await signAssertion(
    ctx.settings.signingKey,
    ctx.issuer,
    { registrationId: registration.id, jti, registrationType: registration.type, stage: 'claimed', scopes },
    { issuedAt: now, expiresAt: addSeconds(now, agentLifetimes.postClaimAssertionSeconds) },
  )
  const redeemed = await deps.agents.redeemClaim({
    claimTokenHash,
    token: token.draft,
    assertionIdHash: await deps.sha256(jti),
    at: now,
    audit: tokenIssued(ctx, token.draft.id, 'claim', scopes, tokenExpiresAt, now),
  })
  if (!redeemed.ok) return fail('invalid_grant', 'The claim token was already exchanged (it is good once).')
  return agentOk({
    access_token: token.secret,
    token_type: 'Bearer',
    expires_in: agentLifetimes.postClaimTokenSeconds,
    scope: scopes.join(' '),
    identity_assertion: signed.assertion,
    assertion_expires: iso(signed.expiresAt),
  })
}

/**
 * RFC 7523 jwt-bearer with Quire's own identity assertion: an unclaimed anonymous agent gets a
 * pre-claim token (15 minutes, never past the claim window); a claimed agent a post-claim token
 * (1 hour). Only the agent's latest assertion works, and a pre-claim one stops at the claim.
 */
async function jwtBearerGrant(ctx: AgentContext, form: AgentForm): Promise<AgentReply> {
  const assertion = form.assertion
  if (typeof assertion !== 'string' || assertion === '') return fail('invalid_request', 'assertion is required.')
  const { deps } = ctx
  const now = deps.clock.now()
  const verified = await verifyAssertion(ctx.settings.signingKey, ctx.issuer, assertion, now)
  if (!verified.ok) return fail('invalid_grant', `The assertion ${verified.reason}.`)
  const { claims } = verified
  const registration = await deps.agents.findById(claims.registrationId)
  if (registration === null || registration.type !== claims.registrationType) return fail('invalid_grant', 'The assertion is not valid.')
  if (registration.revokedAt !== null) return fail('invalid_grant', 'This agent was revoked.')

  let base: Scope[]
  let expiresAt: Date
  if (claims.stage === 'unclaimed') {
    if (registration.claimedBy !== null) {
      return fail(
        'invalid_grant',
        'This agent was claimed: its pre-claim assertion no longer works. Exchange the claim token (claim grant).',
      )
    }
    if (registration.type !== 'anonymous') return fail('invalid_grant', 'The assertion is not valid.')
    if (now.getTime() >= registration.claimExpiresAt.getTime()) return fail('invalid_grant', 'The claim window is over: register again.')
    base = liveScopes(ctx, registration, 'unclaimed')
    expiresAt = earliest(addSeconds(now, agentLifetimes.preClaimTokenSeconds), registration.claimExpiresAt)
  } else {
    if (registration.claimedBy === null) return fail('invalid_grant', 'The assertion is not valid.')
    base = liveScopes(ctx, registration, 'claimed')
    expiresAt = addSeconds(now, agentLifetimes.postClaimTokenSeconds)
  }
  let scopes = base
  const scope: unknown = form.scope
  if (scope !== undefined && typeof scope !== 'string') return fail('invalid_request', 'scope must be a space-separated string.')
  if (typeof scope === 'string' && scope.trim() !== '') {
    // Scopes the person has not approved yet: polled like the claim (RFC 8628's answers).
    const pending = claims.stage === 'claimed' ? pendingScopes(ctx, registration, scope, now) : null
    if (pending !== null) {
      if ((await deps.agents.recordPoll(registration.id, now)) === 'slow_down') {
        return fail(
          'slow_down',
          `You polled sooner than every ${registration.pollIntervalSeconds} seconds: add 5 seconds to your interval.`,
        )
      }
      return pending
    }
    const requested = requestScopes(scope, base, 'scope')
    if (!requested.ok) return fail('invalid_scope', `${requested.why}.`)
    scopes = requested.scopes
  }
  if (scopes.length === 0) return fail('invalid_scope', 'None of the scopes this agent registered for is allowed any more.')

  const token = await newAgentToken(ctx, scopes, expiresAt)
  const exchanged = await deps.agents.exchangeAssertion({
    registrationId: registration.id,
    assertionIdHash: await deps.sha256(claims.jti),
    stage: claims.stage,
    token: token.draft,
    at: now,
    audit: claims.stage === 'claimed' ? tokenIssued(ctx, token.draft.id, 'jwt-bearer', scopes, expiresAt, now) : null,
  })
  if (!exchanged.ok) {
    return fail('invalid_grant', 'The assertion no longer works: a newer one replaced it, or the agent was claimed or revoked.')
  }
  return agentOk({ access_token: token.secret, token_type: 'Bearer', expires_in: secondsUntil(expiresAt, now), scope: scopes.join(' ') })
}

/** The agent grants of `/oauth2/token`; null when `grant_type` is another (the OAuth server answers it). */
export async function token(ctx: AgentContext, form: AgentForm): Promise<AgentReply | null> {
  switch (form.grant_type) {
    case agentGrantTypes.claim:
    case agentGrantTypes.claimAlias:
      return claimGrant(ctx, form)
    case agentGrantTypes.jwtBearer:
      return jwtBearerGrant(ctx, form)
    default:
      return null
  }
}
