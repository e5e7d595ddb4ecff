import type { Scope } from '../contract/scopes.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import type { PrincipalUser } from '../domain/principal.ts'

export interface EnsureUserCommand {
  readonly email: string
  readonly emailVerified: boolean
  /** Usernames to try in order; the first free one becomes the personal workspace slug. */
  readonly usernameCandidates: readonly string[]
  readonly userId: string
  readonly workspaceId: string
  readonly at: Date
  /** Written only when the user is created. */
  readonly audit: (user: PrincipalUser) => AuditEventDraft
}

export interface CreateApiKeyCommand {
  readonly id: string
  readonly userId: string
  readonly name: string
  readonly scopes: readonly Scope[]
  readonly secretHash: string
  readonly displayPrefix: string
  readonly expiresAt: Date | null
  readonly at: Date
  readonly audit: AuditEventDraft
}

/** Users and their personal workspaces. */
export interface AccountStore {
  /** Finds the user with this email, or creates it with a personal workspace, atomically. */
  ensureUser(command: EnsureUserCommand): Promise<{ user: PrincipalUser; personalWorkspaceId: string; created: boolean }>
}

export interface ApiKeyStore {
  create(command: CreateApiKeyCommand): Promise<void>
}
