import type { Plan } from '../contract/schemas/account.ts'
import type { ArtifactType } from '../contract/schemas/artifact.ts'
import type { ActorRef } from '../contract/schemas/common.ts'
import type { Scope } from '../contract/scopes.ts'
import type { Role } from '../domain/policy.ts'
import type { CredentialRecord, PrincipalUser } from '../domain/principal.ts'

export interface WorkspaceRecord {
  readonly id: string
  readonly slug: string
  readonly kind: 'personal' | 'team'
  readonly name: string
}

/** A workspace with its plan. */
export interface WorkspacePlanRecord extends WorkspaceRecord {
  readonly plan: Plan
}

/** A workspace as listed for one of its members. */
export interface WorkspaceSummary extends WorkspacePlanRecord {
  readonly createdAt: Date
  /** The member's role. */
  readonly role: Role
}

export interface ProfileRecord {
  readonly user: PrincipalUser
  readonly personalWorkspaceId: string
  readonly plan: Plan
  readonly createdAt: Date
}

export interface MembershipRecord {
  readonly userId: string
  readonly username: string
  readonly email: string
  readonly role: Role
  readonly joinedAt: Date
}

export interface InvitationRecord {
  readonly id: string
  readonly workspaceId: string
  readonly workspaceSlug: string
  /** Lower-cased. */
  readonly email: string
  readonly role: 'member' | 'admin'
  readonly createdAt: Date
  readonly createdBy: ActorRef
  readonly expiresAt: Date
  readonly acceptedAt: Date | null
  readonly acceptedBy: string | null
  readonly revokedAt: Date | null
}

export interface ApiKeyRecord {
  readonly id: string
  readonly name: string
  readonly displayPrefix: string
  readonly scopes: readonly Scope[]
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
}

export interface ProjectRecord {
  readonly id: string
  readonly workspaceId: string
  readonly ownerSlug: string
  readonly slug: string
  readonly title: string
  readonly description: string
  readonly icon: string
  readonly createdAt: Date
  readonly createdBy: ActorRef
}

/** What authorization and version reads need to know about an artifact. */
export interface ArtifactAccess {
  readonly id: string
  readonly workspaceId: string
  readonly type: ArtifactType
  readonly publicView: boolean
  readonly publicEdit: boolean
  readonly viewerEmails: readonly string[]
  readonly latestVersion: number
}

export interface ArtifactRecord extends ArtifactAccess {
  readonly ownerSlug: string
  readonly projectId: string
  readonly projectSlug: string
  readonly slug: string
  readonly title: string
  readonly description: string
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly deletedAt: Date | null
  readonly createdBy: ActorRef
}

export interface VersionRecord {
  readonly artifactId: string
  readonly number: number
  readonly sha256: string
  readonly size: number
  readonly changelog: string
  readonly restoredFrom: number | null
  readonly createdAt: Date
  readonly createdBy: ActorRef
}

/** A share link as stored: a credential for one artifact with one role. Its secret is kept only as a hash. */
export interface ShareLinkRecord {
  readonly id: string
  readonly artifactId: string
  readonly role: 'viewer' | 'editor'
  readonly displayPrefix: string
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
  readonly createdAt: Date
  readonly createdBy: ActorRef | null
}

/** The settings that decide who may see an artifact, as changed together. */
export interface AccessSettingsRecord {
  readonly publicView: boolean
  readonly publicEdit: boolean
  readonly viewerEmails: readonly string[]
}

export interface ContentRecord extends VersionRecord {
  readonly body: string
}

/**
 * What one round trip returns for an artifact-scoped call: the caller's credential (null when
 * none was presented or it is unknown), the artifact (null when missing or deleted) and the
 * caller's role in its workspace.
 */
export interface ArtifactContext<A extends ArtifactAccess = ArtifactRecord> {
  readonly credential: CredentialRecord | null
  readonly artifact: A | null
  readonly role: Role | null
}

/** The same for version reads and writes: access facts, and the version asked for. */
export interface VersionContext<V extends VersionRecord = VersionRecord> extends ArtifactContext<ArtifactAccess> {
  readonly version: V | null
}

/** What one round trip returns for a namespace-scoped call (owner, maybe a project). */
export interface NamespaceContext {
  readonly credential: CredentialRecord | null
  readonly workspace: WorkspaceRecord | null
  readonly role: Role | null
  readonly project: ProjectRecord | null
}

/** A stored idempotent result. */
export interface IdempotencyRecord {
  readonly requestHash: string
  readonly status: number
  readonly response: unknown
}

/** Written with a change, in its transaction, so that a retry replays it. */
export interface IdempotencyDraft {
  readonly scope: string
  readonly key: string
  readonly requestHash: string
  readonly status: number
  readonly response: unknown
  readonly at: Date
}
