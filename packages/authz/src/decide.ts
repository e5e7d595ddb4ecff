import { type Action, type Decision, type Grant, type Principal, type Resource, scopeFor, userOf } from '@quire/core'
import { linkGrants, roleGrants } from './roles.ts'

const allow = (reason: string, grant: Grant = { kind: 'open' }): Decision => ({ allow: true, reason, grant })
const deny = (code: Exclude<Decision, { allow: true }>['code'], reason: string): Decision => ({ allow: false, code, reason })

/** Token scopes narrow what a principal may do; a session carries all of its user's rights. */
function scopeCheck(principal: Principal, action: Action, granted: string, grant: Grant): Decision {
  if (principal.kind === 'anonymous' || principal.kind === 'share_link' || principal.kind === 'session') return allow(granted, grant)
  const scope = scopeFor(action)
  if (scope === null) return allow(`${granted}; no scope needed`, grant)
  if (principal.scopes.includes(scope)) return allow(`${granted}; the credential carries ${scope}`, grant)
  return { allow: false, code: 'insufficient_scope', reason: `the credential lacks ${scope}`, scope }
}

function decideArtifact(principal: Principal, action: Action, artifact: Extract<Resource, { type: 'artifact' }>): Decision {
  if (principal.kind === 'share_link') {
    if (principal.artifactId !== artifact.id) return deny('not_found', 'a share link reaches only its own artifact')
    if (linkGrants[principal.role].has(action)) return allow(`share link with role ${principal.role}`, { kind: 'share_link' })
    return deny('forbidden', `a ${principal.role} share link does not grant ${action}`)
  }
  const user = userOf(principal)
  // A role only ever belongs to a user; never trust one handed in for anyone else.
  const role = user === null ? null : artifact.role
  const allowlisted = user?.emailVerified && artifact.viewerEmails.includes(user.email.toLowerCase())
  const visible = artifact.publicView || role !== null || allowlisted
  if (!visible) return deny('not_found', 'the artifact is private and the caller has no relation to it')

  if (principal.kind === 'anonymous') {
    if (action === 'artifact.read') return allow('the artifact is publicly viewable', { kind: 'public_view' })
    return deny('unauthenticated', 'anonymous callers never write')
  }
  if (role !== null && roleGrants[role].has(action)) return scopeCheck(principal, action, `workspace ${role}`, { kind: 'role', role })
  if (action === 'artifact.read') {
    return artifact.publicView
      ? scopeCheck(principal, action, 'the artifact is publicly viewable', { kind: 'public_view' })
      : scopeCheck(principal, action, 'the caller is on the viewer allowlist', { kind: 'viewer_email' })
  }
  if (action === 'artifact.update' && artifact.publicEdit) {
    return scopeCheck(principal, action, 'the artifact is publicly editable', { kind: 'public_edit' })
  }
  return deny('forbidden', role ? `a workspace ${role} may not ${action}` : `only workspace members may ${action}`)
}

/**
 * The one authorization decision. Pure: every fact it needs (including the caller's role in
 * the resource's workspace) arrives with the resource. The order of checks is: can the caller
 * know the resource exists (else 404), may its role or the resource's settings allow the action
 * (else 403 `forbidden`), does its token carry the scope (else 403 `insufficient_scope`).
 */
export function decide(principal: Principal, action: Action, resource: Resource): Decision {
  switch (resource.type) {
    case 'service':
      return allow('open to everyone')
    case 'account': {
      if (principal.kind === 'anonymous') return deny('unauthenticated', 'account data needs a signed-in caller')
      if (userOf(principal) === null) return deny('forbidden', 'the credential is not tied to an account')
      return scopeCheck(principal, action, 'own account', { kind: 'open' })
    }
    case 'workspace': {
      if (principal.kind === 'anonymous') return deny('unauthenticated', 'workspaces need a signed-in caller')
      if (userOf(principal) === null || resource.role === null) return deny('not_found', 'the caller is not a member of the workspace')
      if (!roleGrants[resource.role].has(action)) return deny('forbidden', `a workspace ${resource.role} may not ${action}`)
      return scopeCheck(principal, action, `workspace ${resource.role}`, { kind: 'role', role: resource.role })
    }
    case 'invitation': {
      if (principal.kind === 'anonymous') return deny('unauthenticated', 'invitations are accepted by a signed-in invitee')
      const user = userOf(principal)
      if (user === null) return deny('forbidden', 'the credential is not tied to an account')
      // Someone else's invitation does not exist for the caller, nor does one to an unverified email.
      if (!user.emailVerified || user.email.toLowerCase() !== resource.email) {
        return deny('not_found', 'the invitation is addressed to another (verified) email')
      }
      return scopeCheck(principal, action, "the invitation is addressed to the caller's verified email", { kind: 'open' })
    }
    case 'artifact':
      return decideArtifact(principal, action, resource)
  }
}
