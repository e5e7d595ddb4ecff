import type { AuditAction } from '../contract/audit-actions.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import type { Retention } from '../domain/plans.ts'
import type { Grant } from '../domain/policy.ts'
import type { CredentialRecord, PresentedCredential } from '../domain/principal.ts'
import type {
  AccessSettingsRecord,
  ArtifactAccess,
  ArtifactContext,
  ArtifactRecord,
  ContentRecord,
  IdempotencyDraft,
  IdempotencyRecord,
  NamespaceContext,
  ProjectRecord,
  ShareLinkRecord,
  VersionContext,
  VersionRecord,
} from './records.ts'

/**
 * A page request for keyset pagination: items strictly after `after` (a sort key). Stores return
 * up to `limit + 1` rows; the extra row tells that another page exists.
 */
export interface PageRequest {
  readonly limit: number
  readonly after: string | null
}

export type ArtifactTarget = { readonly id: string } | { readonly owner: string; readonly projectSlug: string; readonly slug: string }

/** Why a write did not happen. `idempotency_taken`: another request committed with the same key. */
export type WriteRefusal = 'slug_taken' | 'idempotency_taken' | 'gone'

export interface CreateArtifactCommand {
  readonly artifact: Omit<ArtifactRecord, 'deletedAt' | 'ownerSlug' | 'projectSlug'>
  /** What admitted the creation (and, for non-default access, the right to set access): re-checked by the insert. */
  readonly guard: WriteGuard
  readonly version: VersionRecord
  readonly content: string
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

/**
 * The facts an authorization rested on, re-checked by the database inside the write: the change
 * commits only if they still hold at that moment.
 */
export interface WriteGuard {
  /** The credential must still be live (not revoked, not expired at `at`); null for none. */
  readonly credentialId: string | null
  /** For a role grant: the member whose role is checked. */
  readonly userId: string | null
  readonly grant: Grant
  readonly at: Date
}

export interface AppendVersionCommand {
  readonly artifactId: string
  readonly guard: WriteGuard
  /** The head the write is conditional on; the new version is `expectedLatestVersion + 1`. */
  readonly expectedLatestVersion: number
  readonly version: VersionRecord
  /** Null when the content is already stored (a restore). */
  readonly content: string | null
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

export type AppendOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'conflict'; readonly latestVersion: number }
  | { readonly ok: false; readonly reason: 'gone' | 'idempotency_taken' }
  /** The guard failed: the facts behind the authorization changed. */
  | { readonly ok: false; readonly reason: 'refused' }

export interface SoftDeleteCommand {
  readonly artifactId: string
  readonly at: Date
  readonly audit: AuditEventDraft
}

export interface UpdateAccessCommand {
  readonly artifactId: string
  readonly guard: WriteGuard
  readonly settings: AccessSettingsRecord
  readonly audit: AuditEventDraft
}

/** A guarded write's outcome: `gone` when the target no longer exists, `refused` when the guard failed. */
export type GuardedOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: 'gone' | 'refused' | 'idempotency_taken' }

export interface CreateShareLinkCommand {
  readonly link: ShareLinkRecord
  readonly secretHash: string
  readonly guard: WriteGuard
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

export interface RevokeShareLinkCommand {
  readonly linkId: string
  readonly artifactId: string
  readonly guard: WriteGuard
  readonly audit: AuditEventDraft
}

export interface CreateProjectCommand {
  readonly project: Omit<ProjectRecord, 'ownerSlug'>
  readonly audit: AuditEventDraft
  readonly idempotency: IdempotencyDraft | null
}

/** Credentials by secret hash. */
export interface CredentialStore {
  find(credential: PresentedCredential): Promise<CredentialRecord | null>
  /**
   * Records that a credential was used at `at`, to the minute: at most one write per credential
   * and minute, in the background (a failure is not the request's).
   */
  touch(credentialId: string, at: Date): void
  /**
   * Records on the owner's trail that a known credential was refused (`credential.rejected`): in
   * the background, at most once per credential in a while (a replay loop cannot flood the trail),
   * and a failure is not the request's.
   */
  rejected(event: AuditEventDraft): void
}

/** Which of a workspace's artifacts a listing reads. */
export interface ArtifactListScope {
  readonly workspaceId: string
  readonly projectId?: string
  readonly publicOnly?: boolean
  /**
   * With `publicOnly`: also the artifacts whose viewer allowlist holds this email (a visitor's
   * verified one, lower-cased as allowlists are stored).
   */
  readonly viewerEmail?: string
}

/** Artifacts and their versions. Every mutation writes its audit event in the same transaction. */
export interface ArtifactStore {
  /**
   * One round trip: the credential, the artifact's metadata and the caller's role. A soft-deleted
   * artifact is found only when asked for by id with `includeDeleted` (its `deletedAt` set): a path
   * names live artifacts only, since a deleted artifact's slug may be taken again.
   */
  loadForCaller(
    query:
      | { readonly credential: PresentedCredential | null; readonly target: ArtifactTarget; readonly includeDeleted?: false }
      | { readonly credential: PresentedCredential | null; readonly target: { readonly id: string }; readonly includeDeleted: true },
  ): Promise<ArtifactContext>
  /**
   * The hot path of reads and writes, one round trip at most: the credential, the artifact's
   * access facts, the caller's role and (when asked) a version. Versions and content never change,
   * so a store may serve them from memory once seen.
   */
  loadVersionForCaller(query: {
    readonly credential: PresentedCredential | null
    readonly artifactId: string
    readonly version?: number | 'latest'
  }): Promise<VersionContext>
  /** Like `loadVersionForCaller`, with the version's content. */
  loadContentForCaller(query: {
    readonly credential: PresentedCredential | null
    readonly artifactId: string
    readonly version: number | 'latest'
  }): Promise<VersionContext<ContentRecord>>
  create(command: CreateArtifactCommand): Promise<{ ok: true } | { ok: false; reason: WriteRefusal | 'refused' }>
  append(command: AppendVersionCommand): Promise<AppendOutcome>
  softDelete(command: SoftDeleteCommand): Promise<boolean>
  /** Replaces the access settings, guarded, with the audit event in the same statement. */
  updateAccess(command: UpdateAccessCommand): Promise<GuardedOutcome>
  /** Artifacts (not deleted) in every workspace the user belongs to, newest first. */
  listForUser(userId: string, page: PageRequest): Promise<ArtifactRecord[]>
  /**
   * Artifacts (not deleted) of one workspace's projects, newest first: all of them, or one
   * project's, or only those anyone may view (`publicOnly`, what a visitor who is not a member
   * browses, with those allowlisting `viewerEmail`; the policy still decides on each).
   */
  listForWorkspace(scope: ArtifactListScope, page: PageRequest): Promise<ArtifactRecord[]>
  /** Versions, newest first. */
  listVersions(artifactId: string, page: PageRequest): Promise<VersionRecord[]>
  /** The given versions with their content. */
  contents(artifactId: string, numbers: readonly number[]): Promise<ContentRecord[]>
  /** Whether a live artifact has this slug in the project. */
  slugTaken(projectId: string, slug: string): Promise<boolean>
}

export interface ProjectStore {
  /** One round trip: credential, the owner workspace and the caller's role, and maybe a project. */
  loadNamespaceForCaller(query: {
    readonly credential: PresentedCredential | null
    readonly owner: string
    readonly projectSlug?: string
  }): Promise<NamespaceContext>
  create(command: CreateProjectCommand): Promise<{ ok: true } | { ok: false; reason: WriteRefusal }>
  /** Projects of every workspace the user belongs to, newest first. */
  listForUser(userId: string, page: PageRequest): Promise<ProjectRecord[]>
  /** Projects of one workspace, newest first. */
  listForWorkspace(workspaceId: string, page: PageRequest): Promise<ProjectRecord[]>
  slugTaken(workspaceId: string, slug: string): Promise<boolean>
}

/** Share links: credentials for one artifact, listed by artifact. */
export interface ShareLinkStore {
  /** One round trip: the caller's credential, the link, its (live) artifact and the caller's role there. */
  loadForCaller(query: {
    readonly credential: PresentedCredential | null
    readonly shareLinkId: string
  }): Promise<ArtifactContext<ArtifactAccess> & { readonly link: ShareLinkRecord | null }>
  create(command: CreateShareLinkCommand): Promise<GuardedOutcome>
  /** A link as it is now (revoked or not), by id. */
  find(shareLinkId: string): Promise<ShareLinkRecord | null>
  /** Newest first. */
  listForArtifact(artifactId: string, page: PageRequest): Promise<ShareLinkRecord[]>
  /** Revokes a live link; `ok: true` with `changed: false` when it was already revoked. */
  revoke(
    command: RevokeShareLinkCommand,
  ): Promise<(GuardedOutcome & { readonly ok: false }) | { readonly ok: true; readonly link: ShareLinkRecord; readonly changed: boolean }>
}

/**
 * The audit trail, read-only: events are written only with the changes they record. Every read
 * leaves out events older than their workspace plan's retention.
 */
export interface AuditStore {
  /** An artifact's events, newest first (only those of kind `action`, when given). */
  listForArtifact(artifactId: string, page: PageRequest, retention: Retention, action?: AuditAction): Promise<AuditEventDraft[]>
  /** Events the user performed, and events of the user's personal workspace, newest first. */
  listForAccount(userId: string, page: PageRequest, retention: Retention, action?: AuditAction): Promise<AuditEventDraft[]>
  /** A workspace's events, newest first. */
  listForWorkspace(workspaceId: string, page: PageRequest, retention: Retention, action?: AuditAction): Promise<AuditEventDraft[]>
}

export interface IdempotencyStore {
  /**
   * The record of a key written at or after `notBefore`. An older record of the same key is past
   * the window: it is deleted here, so that the key may be used afresh.
   */
  find(scope: string, key: string, notBefore: Date): Promise<IdempotencyRecord | null>
  /** Deletes the records written before `before` (in batches); returns how many. */
  expire(before: Date): Promise<number>
}

export interface HealthProbe {
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
}
