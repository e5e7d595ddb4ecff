import {
  type Authentication,
  type CredentialRecord,
  generatedAgentName,
  isScope,
  type Principal,
  type Scope,
  sameResource,
} from '@quire/core'

export interface AuthenticateOptions {
  /** The resource identifier OAuth access tokens must be issued for (RFC 8707 audience). */
  readonly audience?: string
}

/**
 * Turns a stored credential into a principal, or says why it is not valid. Revocation and
 * expiry are checked against the injected clock's `now`, so they take effect at once.
 */
export function authenticate(record: CredentialRecord | null, now: Date, options: AuthenticateOptions = {}): Authentication {
  if (record === null) return { ok: false, reason: 'unknown credential' }
  if (record.revokedAt !== null) return { ok: false, reason: 'revoked' }
  if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' }
  const scopes: Scope[] = record.scopes.filter(isScope)
  let principal: Principal
  switch (record.kind) {
    case 'session':
      if (!record.user) return { ok: false, reason: 'session without user' }
      principal = { kind: 'session', credentialId: record.id, user: record.user, scopes: 'all' }
      break
    case 'api_key':
      if (!record.user) return { ok: false, reason: 'key without user' }
      principal = { kind: 'api_key', credentialId: record.id, user: record.user, scopes }
      break
    case 'oauth':
      if (!record.user) return { ok: false, reason: 'token without user' }
      if (options.audience && (!record.audience || !sameResource(record.audience, options.audience))) {
        return { ok: false, reason: 'issued for another resource' }
      }
      principal = { kind: 'oauth', credentialId: record.id, user: record.user, scopes }
      break
    case 'agent':
      if (!record.agentId) return { ok: false, reason: 'token without agent' }
      principal = {
        kind: 'agent',
        credentialId: record.id,
        agentId: record.agentId,
        agentName: record.agentName ?? generatedAgentName(record.agentId),
        user: record.user,
        scopes,
      }
      break
    case 'share_link':
      if (!record.artifactId || !record.role) return { ok: false, reason: 'link without artifact' }
      principal = { kind: 'share_link', credentialId: record.id, artifactId: record.artifactId, role: record.role }
      break
  }
  return { ok: true, principal }
}
