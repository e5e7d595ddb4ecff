import type { Action } from '../contract/actions.ts'
import type { Scope } from '../contract/scopes.ts'
import type { CredentialRecord, Principal } from './principal.ts'

/** A workspace role. */
export type Role = 'owner' | 'admin' | 'member'

/**
 * What the policy needs to know about the thing being acted on. Facts about the caller's
 * relation to it (membership role) are loaded together with the resource, in one query.
 */
export type Resource =
  | { readonly type: 'service' }
  | { readonly type: 'account' }
  | { readonly type: 'workspace'; readonly id: string; readonly role: Role | null }
  /** An invitation, as its invitee sees it: only the verified owner of `email` may act on it. */
  | { readonly type: 'invitation'; readonly id: string; readonly email: string }
  | {
      readonly type: 'artifact'
      readonly id: string
      readonly workspaceId: string
      readonly role: Role | null
      readonly publicView: boolean
      readonly publicEdit: boolean
      readonly viewerEmails: readonly string[]
    }

export type DenyCode = 'unauthenticated' | 'not_found' | 'forbidden' | 'insufficient_scope'

/**
 * What an allow rests on. A write carries it to the database as a guard, so the change commits
 * only if that fact still holds at that moment (no time-of-check/time-of-use gap).
 */
export type Grant =
  | { readonly kind: 'role'; readonly role: Role }
  | { readonly kind: 'public_view' }
  | { readonly kind: 'public_edit' }
  | { readonly kind: 'viewer_email' }
  | { readonly kind: 'share_link' }
  | { readonly kind: 'open' }

/** The outcome of one authorization question, with the reason in words. */
export type Decision =
  | { readonly allow: true; readonly reason: string; readonly grant: Grant }
  | { readonly allow: false; readonly code: DenyCode; readonly reason: string; readonly scope?: Scope }

export type Authentication = { readonly ok: true; readonly principal: Principal } | { readonly ok: false; readonly reason: string }

/**
 * The one authorization layer, as a port: core's use-cases ask it before they act, and
 * @quire/authz implements it.
 */
export interface Policy {
  authenticate(record: CredentialRecord | null, now: Date): Authentication
  decide(principal: Principal, action: Action, resource: Resource): Decision
}
