import type { Plan } from '../contract/schemas/account.ts'
import type { Scope } from '../contract/scopes.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import type { Retention } from '../domain/plans.ts'
import type { Role } from '../domain/policy.ts'
import type { CredentialRecord, PresentedCredential, PrincipalUser } from '../domain/principal.ts'
import type {
  ApiKeyRecord,
  IdempotencyDraft,
  InvitationRecord,
  MembershipRecord,
  ProfileRecord,
  WorkspacePlanRecord,
  WorkspaceRecord,
  WorkspaceSummary,
} from './records.ts'
import type { PageRequest, WriteGuard } from './stores.ts'

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

/** A write on the caller's own account: it commits only while the credential is still live at `at`. */
export interface CredentialGuard {
  /** Null for the operator, who acts without a credential. */
  readonly credentialId: string | null
  readonly at: Date
}

export interface RenameUserCommand {
  readonly userId: string
  readonly username: string
  readonly guard: CredentialGuard
  readonly audit: AuditEventDraft
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
  readonly guard: CredentialGuard
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

export interface RevokeApiKeyCommand {
  readonly keyId: string
  readonly userId: string
  readonly guard: CredentialGuard
  readonly audit: AuditEventDraft
}

export interface CreateWorkspaceCommand {
  readonly workspace: { readonly id: string; readonly slug: string; readonly name: string; readonly createdAt: Date }
  readonly ownerId: string
  readonly guard: CredentialGuard
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

export interface SetPlanCommand {
  readonly slug: string
  readonly plan: Plan
  /** Built once the workspace is found (it names the workspace and the plan before). */
  readonly audit: (before: WorkspacePlanRecord) => AuditEventDraft
}

export interface CreateInvitationCommand {
  readonly invitation: InvitationRecord
  readonly guard: WriteGuard
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

export interface RevokeInvitationCommand {
  readonly invitationId: string
  readonly workspaceId: string
  readonly guard: WriteGuard
  readonly audit: AuditEventDraft
}

export interface AcceptInvitationCommand {
  readonly invitationId: string
  readonly userId: string
  readonly guard: CredentialGuard
  readonly audit: AuditEventDraft
}

/** Users, their profiles and personal workspaces. */
export interface AccountStore {
  /** Finds the user with this email, or creates it with a personal workspace, atomically. */
  ensureUser(command: EnsureUserCommand): Promise<{ user: PrincipalUser; personalWorkspaceId: string; created: boolean }>
  profile(userId: string): Promise<ProfileRecord | null>
  /**
   * Renames the user and their personal workspace in one statement, with its audit event. Two
   * users racing for one name: exactly one wins, the other gets `slug_taken`.
   */
  rename(command: RenameUserCommand): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'slug_taken' | 'refused' }>
}

/** API keys: credentials of kind `api_key`, by owner. */
export interface ApiKeyStore {
  create(
    command: CreateApiKeyCommand,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'refused' | 'idempotency_taken' }>
  /** The user's keys that are not revoked, newest first. */
  listForUser(userId: string, page: PageRequest): Promise<ApiKeyRecord[]>
  /** One of the user's keys as it is now (revoked or not). */
  find(userId: string, keyId: string): Promise<ApiKeyRecord | null>
  /** Revokes the user's key; `changed: false` when it was revoked already; `gone` when the user has no such key. */
  revoke(
    command: RevokeApiKeyCommand,
  ): Promise<
    | { readonly ok: true; readonly key: ApiKeyRecord; readonly changed: boolean }
    | { readonly ok: false; readonly reason: 'gone' | 'refused' }
  >
}

/** What one round trip returns for a workspace-scoped call. */
export interface WorkspaceContext {
  readonly credential: CredentialRecord | null
  readonly workspace: WorkspaceRecord | null
  readonly role: Role | null
}

export interface WorkspaceStore {
  loadForCaller(query: { readonly credential: PresentedCredential | null; readonly workspaceId: string }): Promise<WorkspaceContext>
  /** The workspaces the user belongs to, oldest first, with the user's role. */
  listForUser(userId: string, page: PageRequest): Promise<WorkspaceSummary[]>
  /** The workspace and its owner's membership, with the audit event. */
  create(
    command: CreateWorkspaceCommand,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'slug_taken' | 'refused' | 'idempotency_taken' }>
  /** Members, by user id (account age). Page keys are user ids. */
  listMembers(workspaceId: string, page: PageRequest): Promise<MembershipRecord[]>
  /** The operator's plan change; null when no workspace has the slug. */
  setPlan(command: SetPlanCommand): Promise<WorkspacePlanRecord | null>
}

export type CreateInvitationOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'already_member' | 'invitation_pending' | 'refused' | 'idempotency_taken' | 'gone' }

export interface InvitationStore {
  /** One round trip: the caller's credential, the invitation, its workspace and the caller's role there. */
  loadForCaller(query: {
    readonly credential: PresentedCredential | null
    readonly invitationId: string
  }): Promise<WorkspaceContext & { readonly invitation: InvitationRecord | null }>
  create(command: CreateInvitationCommand): Promise<CreateInvitationOutcome>
  /** Newest first. */
  listForWorkspace(workspaceId: string, page: PageRequest): Promise<InvitationRecord[]>
  /** Pending (not accepted, revoked or expired at `now`) invitations to this email, newest first. */
  listPendingForEmail(email: string, now: Date, page: PageRequest): Promise<InvitationRecord[]>
  /** Revokes a pending invitation; `changed: false` when it was revoked already. */
  revoke(
    command: RevokeInvitationCommand,
  ): Promise<
    | { readonly ok: true; readonly invitation: InvitationRecord; readonly changed: boolean }
    | { readonly ok: false; readonly reason: 'refused' | 'gone' | 'already_member' }
  >
  /**
   * Accepts a pending, unexpired invitation: the membership, the invitation's acceptance and the
   * audit event commit together. `gone` when it is no longer pending.
   */
  accept(
    command: AcceptInvitationCommand,
  ): Promise<
    | { readonly ok: true; readonly invitation: InvitationRecord }
    | { readonly ok: false; readonly reason: 'already_member' | 'gone' | 'refused' }
  >
}

/** Deletes audit events past their retention. */
export interface AuditPruner {
  /**
   * Deletes, in batches, every event older than its workspace plan's retention. Only one process
   * prunes at a time (a PostgreSQL advisory lock); another that tries meanwhile gets `skipped`.
   */
  prune(retention: Retention): Promise<{ readonly pruned: number; readonly skipped: boolean }>
}
