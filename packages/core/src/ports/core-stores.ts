import type { AccountStore, ApiKeyStore, InvitationStore, WorkspaceStore } from './accounts.ts'
import type { AdmissionCache } from './admissions.ts'
import type { AgentStore } from './agents.ts'
import type { ChangeStore } from './changes.ts'
import type { SearchStore } from './search.ts'
import type { OAuthStore, SignInStore } from './sign-in.ts'
import type { ArtifactStore, AuditStore, CredentialStore, HealthProbe, IdempotencyStore, ProjectStore, ShareLinkStore } from './stores.ts'
import type { WebhookStore } from './webhooks.ts'

/** Every store core's use-cases reach the database through: what a storage adapter provides. */
export interface CoreStores {
  readonly credentials: CredentialStore
  readonly artifacts: ArtifactStore
  readonly projects: ProjectStore
  readonly shareLinks: ShareLinkStore
  readonly accounts: AccountStore
  readonly apiKeys: ApiKeyStore
  readonly workspaces: WorkspaceStore
  readonly invitations: InvitationStore
  /** People signing in through the OpenID Connect provider, and their browser sessions. */
  readonly signIn: SignInStore
  /** The OAuth 2.1 authorization server's clients, codes and tokens. */
  readonly oauth: OAuthStore
  /** Agent registrations (the auth.md layer) and their tokens. */
  readonly agents: AgentStore
  /** The search index: artifacts found by their text, within what the caller may read. */
  readonly search: SearchStore
  readonly audit: AuditStore
  /** The ordered stream of changes followers read and wait on (`GET /api/events`). */
  readonly changes: ChangeStore
  /** Webhooks, their deliveries and the server's signing key. */
  readonly webhooks: WebhookStore
  readonly idempotency: IdempotencyStore
  readonly admissions: AdmissionCache
  readonly health: HealthProbe
}
