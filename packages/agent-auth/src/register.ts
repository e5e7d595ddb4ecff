import {
  type AgentOwner,
  type AgentType,
  type AuditEventDraft,
  agentActor,
  agentDescriptionMaxLength,
  agentNameMaxLength,
  checkAgentText,
  generatedAgentName,
  newSecret,
  type Scope,
  secretPrefixes,
} from '@quire/core'
import { newAssertionId, signAssertion } from './assertion.ts'
import { agentLifetimes, agentTypes } from './constants.ts'
import { type AgentContext, addSeconds, claimBlock, codeDraft, earliest, iso } from './context.ts'
import { agentFail, agentOk } from './errors.ts'
import { isObject, normaliseEmail, quote, requestScopes, stringField } from './input.ts'
import type { AgentReply } from './types.ts'
import { generateUserCode } from './user-code.ts'

/** How often a fresh user code is drawn when it collides with a live one before giving up. */
export const codeAttempts = 5

/**
 * The event filed in the trail of the person an agent names (written by the store only when a
 * person with that verified email exists): the agent, not yet anyone's, is the actor.
 */
export function namingEvent(
  ctx: AgentContext,
  action: 'agent.registered' | 'agent.claim_requested',
  agent: { readonly id: string; readonly name: string },
  type: AgentType,
  scopes: readonly Scope[],
  at: Date,
): (owner: AgentOwner) => AuditEventDraft {
  return (owner) => ({
    id: ctx.deps.ids.next('evt'),
    at,
    action,
    actor: agentActor(agent, null),
    via: { surface: 'api', credential: null, credentialId: null },
    workspaceId: owner.personalWorkspaceId,
    artifactId: null,
    data: { agentId: agent.id, type, requestedScopes: [...scopes] },
  })
}

/**
 * `POST /agent/identity`: registers an agent. `service_auth` names the person who will claim it
 * and gets a user code at once (no token, no assertion); `anonymous` gets an identity assertion
 * for pre-claim tokens. On any error nothing is created.
 */
export async function register(ctx: AgentContext, body: unknown): Promise<AgentReply> {
  const fail = (code: Parameters<typeof agentFail<'identity'>>[1], why: string) => agentFail('identity', code, why)
  if (!isObject(body))
    return fail('invalid_request', 'The body must be a JSON object, e.g. {"type":"service_auth","login_hint":"<email>"}.')
  const type = body.type
  if (typeof type !== 'string' || !(agentTypes as readonly string[]).includes(type)) {
    return fail('invalid_request', `type must be one of ${agentTypes.join(', ')}${type === undefined ? '' : `; got ${quote(type)}`}.`)
  }
  const loginHint = stringField(body, 'login_hint')
  let email: string | null = null
  if (type === 'service_auth') {
    if (loginHint === undefined)
      return fail('invalid_login_hint', 'service_auth needs login_hint: the email address of the person who will claim this agent.')
    email = normaliseEmail(loginHint)
    if (email === null) return fail('invalid_login_hint', 'login_hint is not an email address.')
  } else {
    if (ctx.settings.preClaimScopes.length === 0)
      return fail('anonymous_not_enabled', 'This deployment does not accept anonymous agents; register as service_auth.')
    if (loginHint !== undefined) {
      return fail(
        'invalid_request',
        'An anonymous registration takes no login_hint: name the person later at the claim endpoint, or register as service_auth.',
      )
    }
  }
  const requested = requestScopes(body.scopes, ctx.settings.allowedScopes, 'scopes')
  if (!requested.ok) return fail(requested.kind === 'request' ? 'invalid_request' : 'invalid_scope', `${requested.why}.`)
  const givenName = checkAgentText('name', body.name, agentNameMaxLength)
  if (!givenName.ok) return fail('validation_failed', `${givenName.why}.`)
  const description = checkAgentText('description', body.description, agentDescriptionMaxLength)
  if (!description.ok) return fail('validation_failed', `${description.why}.`)

  const { deps } = ctx
  const now = deps.clock.now()
  const id = deps.ids.next('agt')
  const name = givenName.value ?? generatedAgentName(id)
  const described = { name, description: description.value }
  const { secret: claimToken, hash: claimTokenHash } = await newSecret(secretPrefixes.claimToken)
  const claimExpiresAt = addSeconds(now, agentLifetimes.claimWindowSeconds)
  const postClaimScopes = requested.scopes
  const common = {
    registration_id: id,
    registration_type: type,
    name,
    claim_token: claimToken,
    claim_token_expires: iso(claimExpiresAt),
    post_claim_scopes: postClaimScopes,
  }

  if (type === 'service_auth') {
    for (let attempt = 0; attempt < codeAttempts; attempt++) {
      const code = generateUserCode()
      const userCode = await codeDraft(ctx, code, now, claimExpiresAt)
      const created = await deps.agents.createRegistration({
        id,
        type,
        ...described,
        loginHint: email,
        preClaimScopes: [],
        postClaimScopes,
        claimTokenHash,
        claimExpiresAt,
        userCode,
        assertionIdHash: null,
        pollIntervalSeconds: agentLifetimes.pollIntervalSeconds,
        at: now,
        audit: namingEvent(ctx, 'agent.registered', { id, name }, type, postClaimScopes, now),
      })
      if (created.ok) {
        return agentOk({ ...common, claim: claimBlock(ctx, code, userCode.expiresAt, agentLifetimes.pollIntervalSeconds, now) })
      }
    }
    throw new Error(`agent-auth: no free user code after ${codeAttempts} draws`)
  }

  const preClaimScopes = [...ctx.settings.preClaimScopes]
  const jti = newAssertionId()
  const { assertion, expiresAt } = await signAssertion(
    ctx.settings.signingKey,
    ctx.issuer,
    { registrationId: id, jti, registrationType: 'anonymous', stage: 'unclaimed', scopes: preClaimScopes },
    { issuedAt: now, expiresAt: earliest(addSeconds(now, agentLifetimes.anonymousAssertionSeconds), claimExpiresAt) },
  )
  const created = await deps.agents.createRegistration({
    id,
    type: 'anonymous',
    ...described,
    loginHint: null,
    preClaimScopes,
    postClaimScopes,
    claimTokenHash,
    claimExpiresAt,
    userCode: null,
    assertionIdHash: await deps.sha256(jti),
    pollIntervalSeconds: agentLifetimes.pollIntervalSeconds,
    at: now,
    audit: null,
  })
  if (!created.ok) throw new Error('agent-auth: an anonymous registration has no user code to collide')
  return agentOk({
    registration_id: id,
    registration_type: 'anonymous',
    name,
    identity_assertion: assertion,
    assertion_expires: iso(expiresAt),
    pre_claim_scopes: preClaimScopes,
    claim_token: claimToken,
    claim_token_expires: iso(claimExpiresAt),
    post_claim_scopes: postClaimScopes,
  })
}
