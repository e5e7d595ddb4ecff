import type { Action } from '../contract/actions.ts'
import type { Grant, Resource } from '../domain/policy.ts'
import type { Caller, CredentialRecord, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { CoreDeps } from './deps.ts'

const denyMessages = {
  unauthenticated: 'Sign in or send `Authorization: Bearer <token>`.',
  not_found: 'Not found.',
  forbidden: 'You are not allowed to do this.',
  insufficient_scope: 'The credential lacks a required scope.',
} as const

/** Turns the caller's presented credential (already loaded) into a principal. */
export function principalOf(deps: CoreDeps, caller: Caller, record: CredentialRecord | null): Result<Principal> {
  if (caller.credential === null) return ok({ kind: 'anonymous' })
  const now = deps.clock.now()
  const auth = deps.policy.authenticate(record, now)
  if (!auth.ok) return fail('invalid_token', `The bearer credential is not valid: ${auth.reason}.`)
  if (auth.principal.kind === 'session' && caller.credential.sessionCookie !== true)
    return fail('invalid_token', 'The bearer credential is not valid: a browser session is not a bearer credential.')
  // API keys are listed with when they were last used.
  if (auth.principal.kind === 'api_key') deps.credentials.touch(auth.principal.credentialId, now)
  return ok(auth.principal)
}

/** Asks the one policy; a denial becomes the failure the caller sees, an allow its grant. */
export function authorize(deps: CoreDeps, principal: Principal, action: Action, resource: Resource): Result<Grant> {
  const decision = deps.policy.decide(principal, action, resource)
  if (decision.allow) return ok(decision.grant)
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
      return principal.user ? ok(principal.user) : fail('forbidden', 'An unclaimed agent has no account.')
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
  if (!allowed.ok) return allowed
  const user = requireUser(principal.value)
  if (!user.ok) return user
  return ok({ principal: principal.value, userId: user.value.id })
}
