import type { Policy } from '../domain/policy.ts'
import type { Limits } from '../domain/rules.ts'
import type { AccountStore, ApiKeyStore, InvitationStore, WorkspaceStore } from '../ports/accounts.ts'
import type { AdmissionCache } from '../ports/admissions.ts'
import type { AgentStore } from '../ports/agents.ts'
import type { Clock, IdGenerator, Sha256 } from '../ports/runtime.ts'
import type { OAuthStore, SignInStore } from '../ports/sign-in.ts'
import type {
  ArtifactStore,
  AuditStore,
  CredentialStore,
  HealthProbe,
  IdempotencyStore,
  ProjectStore,
  ShareLinkStore,
} from '../ports/stores.ts'

/** Service-level settings the use-cases need. */
export interface CoreConfig {
  /** Public address of the web app; artifact and project URLs are built from it. It is also the OAuth issuer. */
  readonly webUrl: string
  /** Public address of the REST API: the resource its OAuth tokens are bound to. */
  readonly apiUrl: string
  readonly limits: Limits
  /** The server's version, reported by health. */
  readonly version: string
}

/** Everything a use-case may touch: ports only, wired by the composition root. */
export interface CoreDeps {
  readonly policy: Policy
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly sha256: Sha256
  readonly credentials: CredentialStore
  readonly artifacts: ArtifactStore
  readonly projects: ProjectStore
  readonly shareLinks: ShareLinkStore
  readonly accounts: AccountStore
  readonly apiKeys: ApiKeyStore
  readonly workspaces: WorkspaceStore
  readonly invitations: InvitationStore
  readonly signIn: SignInStore
  readonly oauth: OAuthStore
  /** Agent registrations and their tokens (the auth.md layer). */
  readonly agents: AgentStore
  readonly audit: AuditStore
  readonly idempotency: IdempotencyStore
  readonly admissions: AdmissionCache
  readonly health: HealthProbe
  readonly config: CoreConfig
}
