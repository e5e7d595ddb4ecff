/**
 * `@quire/authz`: the one authorization layer. `createPolicy()` returns the Policy that core's
 * use-cases ask before they act: `authenticate()` turns a stored credential into a principal and
 * `decide()` answers one question with a reason.
 */
import type { Policy } from '@quire/core'
import { type AuthenticateOptions, authenticate } from './authenticate.ts'
import { decide } from './decide.ts'

export { type AuthenticateOptions, authenticate } from './authenticate.ts'
export { decide } from './decide.ts'
export { linkGrants, roleGrants } from './roles.ts'

/** The policy port implementation, configured with the audience OAuth tokens must carry. */
export function createPolicy(options: AuthenticateOptions = {}): Policy {
  return {
    authenticate: (record, now) => authenticate(record, now, options),
    decide,
  }
}
