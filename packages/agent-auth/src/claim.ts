import type { AgentRegistrationRecord, PrincipalUser } from '@quire/core'
import { type AgentContext, claimBlock, codeDraft, iso } from './context.ts'
import { agentFail, agentOk } from './errors.ts'
import { personEvent } from './events.ts'
import { isObject, normaliseEmail, quote, stringField } from './input.ts'
import { codeAttempts, namingEvent } from './register.ts'
import { approveStepUp, stepUpView } from './scopes.ts'
import type { AgentReply, ClaimRegistration, ClaimView, ClaimViewer, ConfirmOutcome } from './types.ts'
import { displayUserCode, generateUserCode, normaliseUserCode } from './user-code.ts'

type ClaimError = Parameters<typeof agentFail<'claim'>>[1]

/** Why a registration can take no (new) claim request, or null when it can. */
function claimRefusal(registration: AgentRegistrationRecord, now: Date): { code: ClaimError; why: string } | null {
  if (registration.revokedAt !== null) return { code: 'claimed_or_in_flight', why: 'This agent was revoked.' }
  if (registration.claimedBy !== null || registration.redeemedAt !== null) {
    return { code: 'claimed_or_in_flight', why: 'This agent is already claimed: exchange the claim token at the token endpoint.' }
  }
  if (now.getTime() >= registration.claimExpiresAt.getTime()) {
    return { code: 'claim_expired', why: `The claim window closed at ${iso(registration.claimExpiresAt)}: register again.` }
  }
  return null
}

/**
 * `POST /agent/identity/claim`: names the person who will claim the agent and issues a fresh user
 * code (a re-call rotates it: the previous code stops working). For `anonymous` agents this starts
 * the claim; for `service_auth` it re-mints the code, for the email registered.
 */
export async function requestClaim(ctx: AgentContext, body: unknown): Promise<AgentReply> {
  const fail = (code: ClaimError, why: string) => agentFail('claim', code, why)
  if (!isObject(body)) return fail('invalid_request', 'The body must be a JSON object: {"claim_token":"…","login_hint":"<email>"}.')
  const type = stringField(body, 'type')
  if (type !== undefined && type !== 'login_hint') {
    return fail('invalid_request', `type must be login_hint (or absent); got ${quote(body.type)}.`)
  }
  const claimToken = stringField(body, 'claim_token')
  if (typeof claimToken !== 'string' || claimToken === '') return fail('invalid_request', 'claim_token is required (a string).')
  const loginHint = stringField(body, 'login_hint')
  if (loginHint === undefined)
    return fail('invalid_login_hint', 'login_hint is required: the email address of the person who will claim this agent.')
  const email = normaliseEmail(loginHint)
  if (email === null) return fail('invalid_login_hint', 'login_hint is not an email address.')

  const { deps } = ctx
  const now = deps.clock.now()
  const claimTokenHash = await deps.sha256(claimToken)
  const registration = await deps.agents.findByClaimToken(claimTokenHash)
  if (registration === null) return fail('invalid_claim_token', 'No agent registration has this claim token.')
  const refusal = claimRefusal(registration, now)
  if (refusal) return fail(refusal.code, refusal.why)
  if (registration.type === 'service_auth' && registration.loginHint !== email) {
    return fail('invalid_login_hint', 'login_hint differs from the email this agent registered with.')
  }

  for (let attempt = 0; attempt < codeAttempts; attempt++) {
    const code = generateUserCode()
    const userCode = await codeDraft(ctx, code, now, registration.claimExpiresAt)
    const started = await deps.agents.startClaim({
      registrationId: registration.id,
      loginHint: email,
      userCode,
      at: now,
      audit:
        registration.type === 'anonymous'
          ? namingEvent(ctx, 'agent.claim_requested', registration, registration.type, registration.postClaimScopes, now)
          : null,
    })
    if (started.ok) {
      return agentOk({
        registration_id: registration.id,
        status: 'initiated',
        expires_at: iso(userCode.expiresAt),
        claim: claimBlock(ctx, code, userCode.expiresAt, registration.pollIntervalSeconds, now),
      })
    }
    if (started.reason === 'gone') {
      // Raced with a confirmation, a revocation or the end of the window: answer as for the state it is in now.
      const current = await deps.agents.findById(registration.id)
      const after = current === null ? null : claimRefusal(current, now)
      return after
        ? fail(after.code, after.why)
        : fail('claimed_or_in_flight', 'The agent changed while the claim was requested; try again.')
    }
  }
  throw new Error(`agent-auth: no free user code after ${codeAttempts} draws`)
}

/** The registration's live code for a typed code, or null (not a code, or no live one like it). */
async function findByCode(ctx: AgentContext, userCode: string) {
  const code = normaliseUserCode(userCode)
  if (code === null) return null
  const registration = await ctx.deps.agents.findByUserCode(await ctx.deps.sha256(code))
  return registration === null ? null : { code, registration }
}

/** Whether the signed-in person is the one the agent named: their VERIFIED email, case-insensitively. */
function isNamedPerson(viewer: PrincipalUser, registration: AgentRegistrationRecord): boolean {
  return viewer.emailVerified && registration.loginHint !== null && viewer.email.trim().toLowerCase() === registration.loginHint
}

function classify(registration: AgentRegistrationRecord, code: string, viewer: PrincipalUser, now: Date): ClaimView {
  if (registration.revokedAt !== null) return { kind: 'unknown' }
  if (registration.requestedScopes !== null) return stepUpView(registration, code, viewer, now)
  if (registration.claimedBy !== null) return { kind: 'claimed' }
  const codeExpiresAt = registration.userCodeExpiresAt
  if (codeExpiresAt === null || now.getTime() >= codeExpiresAt.getTime() || now.getTime() >= registration.claimExpiresAt.getTime()) {
    return { kind: 'expired' }
  }
  if (!isNamedPerson(viewer, registration)) return { kind: 'wrong_account' }
  return { kind: 'pending', registration: present(registration, codeExpiresAt), userCode: displayUserCode(code) }
}

function present(registration: AgentRegistrationRecord, codeExpiresAt: Date): ClaimRegistration {
  return {
    id: registration.id,
    type: registration.type,
    name: registration.name,
    description: registration.description,
    scopes: registration.postClaimScopes,
    createdAt: registration.createdAt,
    codeExpiresAt,
  }
}

/** `GET /agent/claim?user_code=`: what the page shows the signed-in person. Changes nothing. */
export async function claimView(ctx: AgentContext, userCode: string, viewer: PrincipalUser): Promise<ClaimView> {
  const found = await findByCode(ctx, userCode)
  if (found === null) return { kind: 'unknown' }
  return classify(found.registration, found.code, viewer, ctx.deps.clock.now())
}

/**
 * `POST /agent/claim`: the signed-in person named by the agent confirms. The agent is bound to
 * them, its pre-claim tokens and assertion are revoked, and the claim token can be exchanged once.
 */
export async function confirmClaim(ctx: AgentContext, userCode: string, viewer: ClaimViewer): Promise<ConfirmOutcome> {
  const found = await findByCode(ctx, userCode)
  if (found === null) return { kind: 'unknown' }
  const now = ctx.deps.clock.now()
  const view = classify(found.registration, found.code, viewer.user, now)
  if (view.kind === 'step_up') {
    const granted = await approveStepUp(ctx, await ctx.deps.sha256(found.code), view, viewer)
    if (granted !== null) return granted
    // Raced with a newer request, an expiry or a revocation: answer as for the state it is in now.
    const again = await findByCode(ctx, userCode)
    const after = again === null ? null : classify(again.registration, again.code, viewer.user, now)
    return after === null || after.kind === 'step_up' || after.kind === 'pending' ? { kind: 'unknown' } : after
  }
  if (view.kind !== 'pending') return view
  const outcome = await ctx.deps.agents.confirmClaim({
    userCodeHash: await ctx.deps.sha256(found.code),
    userId: viewer.user.id,
    at: now,
    audit: (registration, owner) =>
      personEvent(ctx, 'agent.claimed', owner, viewer.sessionId, now, {
        agentId: registration.id,
        type: registration.type,
        scopes: [...registration.postClaimScopes],
      }),
  })
  if (outcome.ok) return { kind: 'confirmed', registration: present(outcome.registration, view.registration.codeExpiresAt) }
  // Raced with another confirmation, a rotation or an expiry: answer as for the state it is in now.
  const current = await ctx.deps.agents.findById(found.registration.id)
  if (current?.claimedBy) return { kind: 'claimed' }
  const again = await findByCode(ctx, userCode)
  if (again === null) return { kind: 'unknown' }
  const after = classify(again.registration, again.code, viewer.user, now)
  // Still looks pending here, yet the store refused: the stored account does not match the hint.
  if (after.kind === 'step_up') return { kind: 'claimed' }
  return after.kind === 'pending' ? { kind: 'wrong_account' } : after
}
