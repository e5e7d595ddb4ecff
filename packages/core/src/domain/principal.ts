import type { Scope } from '../contract/scopes.ts'

/** How a caller reached us. Recorded on every audit event. */
export type Surface = 'api' | 'web' | 'cli' | 'mcp' | 'operator'

/** The kind of credential behind a principal. */
export type CredentialKind = 'session' | 'api_key' | 'oauth' | 'agent' | 'share_link'

/** A human account as principals see it. */
export interface PrincipalUser {
  readonly id: string
  readonly email: string
  readonly emailVerified: boolean
  readonly username: string
}

/**
 * The authenticated caller. Each kind names the exact credential behind it, so that every audit
 * event can say which key, token, agent or link acted. `scopes: 'all'` marks a credential that
 * carries the full rights of its user (a browser session).
 */
export type Principal =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'session' | 'api_key' | 'oauth'
      readonly credentialId: string
      readonly user: PrincipalUser
      readonly scopes: readonly Scope[] | 'all'
    }
  | {
      readonly kind: 'agent'
      readonly credentialId: string
      readonly agentId: string
      /** The agent's name (given at registration, or generated): audit events say it. */
      readonly agentName: string
      /** The user who claimed the agent; null while unclaimed. */
      readonly user: PrincipalUser | null
      readonly scopes: readonly Scope[]
    }
  | {
      readonly kind: 'share_link'
      readonly credentialId: string
      readonly artifactId: string
      readonly role: 'viewer' | 'editor'
    }

export type PrincipalKind = Principal['kind']

/** The user a principal acts for, if any. */
export function userOf(principal: Principal): PrincipalUser | null {
  switch (principal.kind) {
    case 'session':
    case 'api_key':
    case 'oauth':
    case 'agent':
      return principal.user
    default:
      return null
  }
}

/**
 * A presented bearer secret, already hashed at the edge (SHA-256, hex). The secret itself never
 * travels past the HTTP layer.
 */
export interface PresentedCredential {
  readonly secretHash: string
  /**
   * Set only by the web app's session cookie. A browser session is good only where it was
   * issued: its secret sent as a bearer token is refused (a stolen cookie is not an API key).
   */
  readonly sessionCookie?: true
}

/** What a use-case knows about who is calling and how. */
export interface Caller {
  readonly credential: PresentedCredential | null
  readonly surface: Surface
  readonly requestId?: string
  /**
   * The kinds of credential this entry point takes (`/mcp`: API keys, OAuth tokens, agent
   * tokens); absent, every kind. Any other is refused as `invalid_token` by whichever operation
   * authenticates the caller, so an edge need not look the credential up before it dispatches.
   */
  readonly accepts?: ReadonlySet<PrincipalKind>
}

/**
 * A stored credential as the storage layer returns it, before validation. `authenticate()`
 * (in @quire/authz) turns it into a Principal or rejects it.
 */
export interface CredentialRecord {
  readonly id: string
  readonly kind: CredentialKind
  readonly scopes: readonly string[]
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
  readonly audience: string | null
  readonly user: PrincipalUser | null
  readonly agentId: string | null
  /** An agent token's agent's name (kept on the token's row); null for every other kind. */
  readonly agentName: string | null
  readonly artifactId: string | null
  readonly role: 'viewer' | 'editor' | null
  /** The personal workspace of the credential's user, where events about the credential are filed; null without a user. */
  readonly accountWorkspaceId: string | null
}
