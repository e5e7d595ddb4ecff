import {
  type AgentOwner,
  type AgentRegistrationRecord,
  type AuditEventDraft,
  isScope,
  type PrincipalUser,
  type Scope,
  scopes,
} from '@quire/core'
import { agentLifetimes, agentPaths } from './constants.ts'
import { type AgentContext, addSeconds, claimBlock, iso } from './context.ts'
import { agentFail, agentOk } from './errors.ts'
import { agentEvent, personEvent } from './events.ts'
import { isObject, quote } from './input.ts'
import { codeAttempts } from './register.ts'
import type { AgentReply, ClaimView, ClaimViewer, ConfirmOutcome } from './types.ts'
import { displayUserCode, generateUserCode } from './user-code.ts'

type ScopesError = Parameters<typeof agentFail<'scopes'>>[1]
const fail = (code: ScopesError, why: string) => agentFail('scopes', code, why)

/** The deployment setting that bounds what a claimed agent may hold, named in refusals. */
const allowedSetting = 'AUTH_MD_ALLOWED_SCOPES'

/**
 * The scope names of a request body: a space-separated string (as OAuth writes `scope`) or a
 * list of strings. Null when the field has another shape.
 */
function scopeNames(value: unknown): string[] | null {
  if (typeof value === 'string') return value.split(' ').filter(Boolean)
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.filter(Boolean)
  return null
}

/**
 * Which of the requested scopes a claimed agent may be granted: each must be a known scope within
 * the deployment's allowed set, and those it holds already are dropped. Every refusal names what
 * is wrong (every scope outside the allowed set, and the setting) and what to send instead.
 */
export function newScopes(
  requested: unknown,
  held: readonly Scope[],
  allowed: readonly Scope[],
): { readonly ok: true; readonly scopes: Scope[] } | { readonly ok: false; readonly reply: AgentReply } {
  const refuse = (reply: AgentReply) => ({ ok: false, reply }) as const
  const names = scopeNames(requested)
  if (names === null || names.length > 64) {
    return refuse(fail('invalid_request', 'scopes must be a space-separated string of scope names (or a list of them).'))
  }
  if (names.length === 0) return refuse(fail('invalid_scope', 'scopes is empty: name the scopes you need added.'))
  const unknown = names.filter((n) => !isScope(n))
  if (unknown.length > 0) {
    return refuse(
      fail(
        'invalid_scope',
        `${unknown.map(quote).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a scope (known: ${scopes.join(' ')}).`,
      ),
    )
  }
  const outside = names.filter((n) => !(allowed as readonly string[]).includes(n))
  if (outside.length > 0) {
    return refuse(
      fail(
        'invalid_scope',
        `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} not allowed for agents on this deployment (${allowedSetting}: ${allowed.join(' ')}); ask only for those.`,
      ),
    )
  }
  const added = allowed.filter((s) => names.includes(s) && !held.includes(s))
  if (added.length === 0) {
    return refuse(fail('invalid_scope', `This agent already holds ${names.join(' ')}: exchange its assertion for a token with them.`))
  }
  return { ok: true, scopes: added }
}

/** The claimed agent an access token belongs to, or why the token cannot ask for scopes. */
async function agentOfToken(
  ctx: AgentContext,
  accessToken: string | null,
  now: Date,
): Promise<
  | { readonly ok: true; readonly registration: AgentRegistrationRecord; readonly tokenId: string }
  | { readonly ok: false; readonly reply: AgentReply }
> {
  const invalid = (why: string) => ({ ok: false, reply: fail('invalid_token', why) }) as const
  if (accessToken === null || accessToken === '') return invalid('Send your access token: Authorization: Bearer qgt_….')
  const record = await ctx.deps.credentials.find({ secretHash: await ctx.deps.sha256(accessToken) })
  if (record === null || record.kind !== 'agent' || record.agentId === null) return invalid('The access token is not an agent token.')
  if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime())) {
    return invalid('The access token expired or was revoked: exchange your identity assertion for a fresh one (jwt-bearer).')
  }
  const registration = await ctx.deps.agents.findById(record.agentId)
  if (registration === null || registration.revokedAt !== null) return invalid('This agent was revoked.')
  if (registration.claimedBy === null || record.user === null) {
    return {
      ok: false,
      reply: fail('not_claimed', 'This agent is not claimed yet: claim first (Step 4), then ask for more scopes with a post-claim token.'),
    }
  }
  return { ok: true, registration, tokenId: record.id }
}

/** `agent.scopes_requested`: on the trail of the agent's person, the agent as the actor. */
function requestedEvent(ctx: AgentContext, tokenId: string, added: readonly Scope[], at: Date) {
  return (registration: AgentRegistrationRecord, owner: AgentOwner): AuditEventDraft =>
    agentEvent(ctx, 'agent.scopes_requested', registration, owner, tokenId, at, {
      added: [...added],
      scopes: [...registration.postClaimScopes],
    })
}

/**
 * `POST /agent/identity/scopes` (step-up): a claimed agent, with any of its access tokens, asks
 * its person for scopes beyond its grant, within the deployment's allowed set. The answer is a
 * fresh user code for the person (as the claim's); a new request replaces the pending one. On any
 * refusal nothing changes.
 */
export async function requestMoreScopes(ctx: AgentContext, accessToken: string | null, body: unknown): Promise<AgentReply> {
  const { deps } = ctx
  const now = deps.clock.now()
  const agent = await agentOfToken(ctx, accessToken, now)
  if (!agent.ok) return agent.reply
  const { registration, tokenId } = agent
  if (!isObject(body)) return fail('invalid_request', 'The body must be a JSON object: {"scopes":"artifacts:share"}.')
  const wanted = newScopes(body.scopes, registration.postClaimScopes, ctx.settings.allowedScopes)
  if (!wanted.ok) return wanted.reply

  for (let attempt = 0; attempt < codeAttempts; attempt++) {
    const code = generateUserCode()
    // As long as a claim's code; the claim window no longer bounds a claimed agent.
    const userCode = { hash: await deps.sha256(code), expiresAt: addSeconds(now, agentLifetimes.userCodeSeconds) }
    const started = await deps.agents.startScopeRequest({
      registrationId: registration.id,
      scopes: wanted.scopes,
      userCode,
      at: now,
      audit: requestedEvent(ctx, tokenId, wanted.scopes, now),
    })
    if (started.ok) {
      return agentOk({
        registration_id: registration.id,
        status: 'initiated',
        scopes_requested: wanted.scopes,
        expires_at: iso(userCode.expiresAt),
        claim: claimBlock(ctx, code, userCode.expiresAt, registration.pollIntervalSeconds, now),
      })
    }
    if (started.reason === 'gone') return fail('invalid_token', 'This agent was revoked.')
  }
  throw new Error(`agent-auth: no free user code after ${codeAttempts} draws`)
}

/**
 * The token endpoint's answer to a jwt-bearer `scope` naming a scope of the pending request: the
 * person has not approved it yet (`authorization_pending`, poll again) or its code ran out
 * (`expired_token`, ask again). Null when the request names none of them: the exchange goes on.
 */
export function pendingScopes(ctx: AgentContext, registration: AgentRegistrationRecord, scope: string, now: Date): AgentReply | null {
  const pending = registration.requestedScopes
  if (pending === null) return null
  const named = scope.split(' ').filter((s) => (pending as readonly string[]).includes(s))
  if (named.length === 0) return null
  const expiresAt = registration.userCodeExpiresAt
  if (expiresAt !== null && now.getTime() < expiresAt.getTime()) {
    return agentFail(
      'token',
      'authorization_pending',
      `The person has not approved ${named.join(' ')} yet: poll again in ${registration.pollIntervalSeconds} seconds (the code expires at ${iso(expiresAt)}).`,
    )
  }
  return agentFail(
    'token',
    'expired_token',
    `The code for ${named.join(' ')} expired before the person approved: POST ${ctx.urls.webUrl}${agentPaths.scopeRequest} again for a new one.`,
  )
}

/**
 * What the claim page shows for a step-up code: only the person who claimed the agent sees the
 * request (anyone else: the wrong-account page), and only while its code is live.
 */
export function stepUpView(registration: AgentRegistrationRecord, code: string, viewer: PrincipalUser, now: Date): ClaimView {
  const requested = registration.requestedScopes
  const codeExpiresAt = registration.userCodeExpiresAt
  if (requested === null || registration.claimedBy === null) return { kind: 'unknown' }
  if (codeExpiresAt === null || now.getTime() >= codeExpiresAt.getTime()) return { kind: 'expired' }
  if (registration.claimedBy.id !== viewer.id) return { kind: 'wrong_account' }
  return {
    kind: 'step_up',
    registration: {
      id: registration.id,
      type: registration.type,
      name: registration.name,
      description: registration.description,
      scopes: registration.postClaimScopes,
      createdAt: registration.createdAt,
      codeExpiresAt,
    },
    userCode: displayUserCode(code),
    added: requested,
    held: registration.postClaimScopes,
  }
}

/**
 * `POST /agent/claim` for a step-up code the person was shown: adds exactly the scopes shown to
 * the agent's grant, with `agent.scopes_granted` on their trail. The agent's next token carries
 * them. Null when the store refused (raced with a new request, an expiry or a revocation).
 */
export async function approveStepUp(
  ctx: AgentContext,
  codeHash: string,
  view: Extract<ClaimView, { kind: 'step_up' }>,
  viewer: ClaimViewer,
): Promise<ConfirmOutcome | null> {
  const now = ctx.deps.clock.now()
  const outcome = await ctx.deps.agents.approveScopeRequest({
    userCodeHash: codeHash,
    userId: viewer.user.id,
    scopes: view.added,
    at: now,
    audit: (registration, owner) =>
      personEvent(ctx, 'agent.scopes_granted', owner, viewer.sessionId, now, {
        agentId: registration.id,
        added: [...view.added],
        scopes: [...registration.postClaimScopes],
      }),
  })
  if (!outcome.ok) return null
  return {
    kind: 'granted',
    registration: { ...view.registration, scopes: outcome.registration.postClaimScopes },
    added: view.added,
  }
}
