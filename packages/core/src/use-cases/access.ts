import type { Action } from '../contract/actions.ts'
import { systemActor } from '../domain/audit.ts'
import { invalidCredential, unseen } from '../domain/hidden.ts'
import type { Grant, Resource } from '../domain/policy.ts'
import type { Caller, CredentialRecord, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { CoreDeps } from './deps.ts'
import { withHandOff } from './hand-off.ts'

const denyMessages = {
  unauthenticated: 'Sign in or send `Authorization: Bearer <token>`.',
  forbidden: 'You are not allowed to do this.',
  insufficient_scope: 'The credential lacks a required scope.',
} as const

/** A kind of credential in a sentence ("use an API key or an OAuth token"). */
const credentialWords: Record<Principal['kind'], string> = {
  anonymous: 'no credential',
  session: 'a browser session',
  api_key: 'an API key',
  oauth: 'an OAuth token issued for this server',
  agent: 'an agent token',
  share_link: 'a share link',
}

/** The words of a 404 for a resource the caller may not know exists (the same whether it exists or not). */
const unseenByType: Record<Resource['type'], string> = {
  artifact: unseen.artifact,
  workspace: unseen.workspace,
  invitation: unseen.invitation,
  account: 'Not found.',
  service: 'Not found.',
}

/**
 * Turns the caller's presented credential (already loaded) into a principal. A credential that is
 * not valid gets one answer whatever the reason; the reason goes to the log (`Failure.reason`)
 * and, for a credential Quire knows (expired, revoked, used where it does not belong), to the
 * audit trail of its owner.
 */
export function principalOf(deps: CoreDeps, caller: Caller, record: CredentialRecord | null): Result<Principal> {
  if (caller.credential === null) return ok({ kind: 'anonymous' })
  const now = deps.clock.now()
  const auth = deps.policy.authenticate(record, now)
  const refusal = !auth.ok
    ? auth.reason
    : auth.principal.kind === 'session' && caller.credential.sessionCookie !== true
      ? 'a browser session is not a bearer credential'
      : null
  if (refusal !== null) {
    if (record !== null) reportRejected(deps, caller, record, refusal, now)
    return fail('invalid_token', invalidCredential, { reason: refusal })
  }
  if (!auth.ok) return fail('invalid_token', invalidCredential, { reason: auth.reason })
  // Valid, but not a kind this entry point takes (a share link or a session at /mcp): not worth a trail entry.
  if (caller.accepts !== undefined && !caller.accepts.has(auth.principal.kind))
    return fail(
      'invalid_token',
      `This credential is not accepted here: use ${[...caller.accepts].map((kind) => credentialWords[kind]).join(' or ')}.`,
      {
        reason: `a ${auth.principal.kind} credential at a ${caller.surface} entry point that does not take it`,
      },
    )
  // API keys are listed with when they were last used.
  if (auth.principal.kind === 'api_key' || auth.principal.kind === 'agent') deps.credentials.touch(auth.principal.credentialId, now)
  return ok(auth.principal)
}

/**
 * A known credential was refused: its owner's trail says so (`credential.rejected`, filed with the
 * account, or with the artifact of a share link). The store writes it in the background, at most
 * once per credential in a while, so replaying a dead key cannot flood the trail.
 */
function reportRejected(deps: CoreDeps, caller: Caller, record: CredentialRecord, reason: string, at: Date): void {
  deps.credentials.rejected({
    id: deps.ids.next('evt'),
    at,
    action: 'credential.rejected',
    actor: systemActor,
    via: { surface: caller.surface, credential: record.kind, credentialId: record.id },
    workspaceId: record.kind === 'share_link' ? null : record.accountWorkspaceId,
    artifactId: record.kind === 'share_link' ? record.artifactId : null,
    data: { credentialId: record.id, credentialKind: record.kind, reason, ...(caller.requestId ? { requestId: caller.requestId } : {}) },
  })
}

/** Asks the one policy; a denial becomes the failure the caller sees, an allow its grant. */
export function authorize(deps: CoreDeps, principal: Principal, action: Action, resource: Resource): Result<Grant> {
  const decision = deps.policy.decide(principal, action, resource)
  if (decision.allow) return ok(decision.grant)
  if (decision.code === 'not_found') return fail('not_found', unseenByType[resource.type], { reason: decision.reason })
  const message =
    decision.code === 'insufficient_scope' && decision.scope
      ? `The credential lacks the \`${decision.scope}\` scope.`
      : denyMessages[decision.code]
  return fail(decision.code, message, decision.scope ? { scope: decision.scope } : {})
}

/** Authenticates, then authorizes: the common first step of every use-case. */
export function admit(
  deps: CoreDeps,
  caller: Caller,
  record: CredentialRecord | null,
  action: Action,
  resource: Resource,
): Result<Principal> {
  const principal = principalOf(deps, caller, record)
  if (!principal.ok) return principal
  const allowed = authorize(deps, principal.value, action, resource)
  return allowed.ok ? principal : allowed
}

/** The user a principal must act for on account-level calls, or a failure. */
export function requireUser(principal: Principal): Result<{ id: string }> {
  switch (principal.kind) {
    case 'session':
    case 'api_key':
    case 'oauth':
      return ok(principal.user)
    case 'agent':
      return principal.user
        ? ok(principal.user)
        : fail(
            'forbidden',
            'This agent is not claimed yet: it acts for no one and has no account. The person it works for claims it (see /auth.md, step 4).',
          )
    case 'share_link':
      return fail('forbidden', 'A share link grants access to one artifact only.')
    case 'anonymous':
      return fail('unauthenticated', denyMessages.unauthenticated)
  }
}

/**
 * The gate for account-level calls: the caller's credential (one lookup), a principal acting
 * for a user, and the policy's word on the action at account level.
 */
export async function admitAccount(
  deps: CoreDeps,
  caller: Caller,
  action: Action,
): Promise<Result<{ principal: Principal; userId: string }>> {
  const record = caller.credential ? await deps.credentials.find(caller.credential) : null
  const principal = principalOf(deps, caller, record)
  if (!principal.ok) return principal
  const allowed = authorize(deps, principal.value, action, { type: 'account' })
  if (!allowed.ok) return { ok: false, error: withHandOff(deps.config, principal.value, allowed.error, action, { kind: 'account' }) }
  const user = requireUser(principal.value)
  if (!user.ok) return user
  return ok({ principal: principal.value, userId: user.value.id })
}

/**
 * Who the caller is, before any operation: the presented credential looked up and checked (the
 * same answer every operation would give). An edge that must refuse before it dispatches (MCP's
 * 401 and 403 challenges) asks this; the operation itself still admits the caller as always.
 */
export async function identify(deps: CoreDeps, caller: Caller): Promise<Result<Principal>> {
  const record = caller.credential ? await deps.credentials.find(caller.credential) : null
  return principalOf(deps, caller, record)
}
