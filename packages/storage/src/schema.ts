import type { ColumnType, JSONColumnType } from 'kysely'

/** Timestamps: written as Date, read as Date (both pg and PGlite parse timestamptz). */
type Timestamp = ColumnType<Date, Date, Date>

export interface UsersTable {
  id: string
  /** Lower-cased; unique among the users whose email is verified (migration 0005). */
  email: string
  email_verified: boolean
  personal_workspace_id: string
  /** Always equal to the personal workspace's slug (a cascading foreign key keeps it so). */
  username: string
  created_at: Timestamp
}

export interface WorkspacesTable {
  id: string
  slug: string
  kind: 'personal' | 'team'
  name: string
  plan: 'free' | 'pro' | 'team'
  created_at: Timestamp
}

export interface MembershipsTable {
  workspace_id: string
  user_id: string
  role: 'owner' | 'admin' | 'member'
  created_at: Timestamp
}

/** Who made a row, denormalised so audit-like facts survive the actor's deletion. */
interface CreatedBy {
  created_by_kind: 'user' | 'agent' | 'share_link' | 'operator'
  created_by_id: string
  created_by_label: string
}

export interface ProjectsTable extends CreatedBy {
  id: string
  workspace_id: string
  slug: string
  title: string
  description: string
  icon: string
  created_at: Timestamp
}

export interface ArtifactsTable extends CreatedBy {
  id: string
  workspace_id: string
  project_id: string
  slug: string
  type: string
  title: string
  description: string
  public_view: boolean
  public_edit: boolean
  viewer_emails: string[]
  latest_version: number
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Timestamp | null
}

/** Content, stored once per SHA-256. */
export interface ContentsTable {
  sha256: string
  body: string
  size: number
  created_at: Timestamp
}

export interface VersionsTable extends CreatedBy {
  artifact_id: string
  number: number
  content_sha256: string
  size: number
  changelog: string
  restored_from: number | null
  created_at: Timestamp
}

/** Every bearer secret (API keys, OAuth and agent tokens, share links), by SHA-256. */
export interface CredentialsTable {
  id: string
  kind: 'session' | 'api_key' | 'oauth' | 'agent' | 'share_link'
  secret_hash: string
  display_prefix: string
  name: string
  user_id: string | null
  agent_id: string | null
  artifact_id: string | null
  role: 'viewer' | 'editor' | null
  scopes: string[]
  audience: string | null
  expires_at: Timestamp | null
  revoked_at: Timestamp | null
  last_used_at: Timestamp | null
  created_at: Timestamp
  /** Null for credentials created before migration 0002, for sessions and for OAuth access tokens (their user made them). */
  created_by_kind: CreatedBy['created_by_kind'] | null
  created_by_id: string | null
  created_by_label: string | null
  /** OAuth access tokens: the client they were issued to, and the family (authorization) they descend from. */
  client_id: string | null
  family_id: string | null
}

/** A provider's (issuer, subject), linked to the Quire user it signs in as. */
export interface UserIdentitiesTable {
  issuer: string
  subject: string
  user_id: string
  created_at: Timestamp
}

/** A registered OAuth client (public: PKCE, no secret). */
export interface OAuthClientsTable {
  id: string
  name: string
  redirect_uris: string[]
  created_at: Timestamp
}

/** One authorization: every token descending from one code exchange. Locked by every change to its tokens. */
export interface OAuthTokenFamiliesTable {
  id: string
  client_id: string
  user_id: string
  created_at: Timestamp
  revoked_at: Timestamp | null
}

/** An authorization code, by SHA-256; `family_id` is the family its exchange created (set with `used_at`). */
export interface OAuthCodesTable {
  code_hash: string
  client_id: string
  user_id: string
  redirect_uri: string
  code_challenge: string
  scopes: string[]
  resource: string
  expires_at: Timestamp
  created_at: Timestamp
  used_at: Timestamp | null
  family_id: string | null
}

/** A refresh token, by SHA-256: live until rotated (once), revoked or expired. */
export interface OAuthRefreshTokensTable {
  id: string
  secret_hash: string
  family_id: string
  client_id: string
  user_id: string
  scopes: string[]
  resource: string
  expires_at: Timestamp
  created_at: Timestamp
  rotated_at: Timestamp | null
  revoked_at: Timestamp | null
}

export interface AuditEventsTable {
  id: string
  at: Timestamp
  action: string
  actor_kind: string
  actor_id: string
  actor_label: string
  via_surface: string
  via_credential: string | null
  via_credential_id: string | null
  workspace_id: string | null
  artifact_id: string | null
  data: JSONColumnType<Record<string, unknown>, string, string>
  /** The person a claimed agent acted for (`ActorRef.onBehalfOf`); null on every other event (migration 0007). */
  actor_for_id: string | null
  actor_for_label: string | null
}

/** An invitation to a workspace by email; pending while not accepted, revoked, superseded or expired. */
export interface WorkspaceInvitationsTable extends CreatedBy {
  id: string
  workspace_id: string
  /** Lower-cased. */
  email: string
  role: 'member' | 'admin'
  created_at: Timestamp
  expires_at: Timestamp
  accepted_at: Timestamp | null
  /** The user who accepted it. */
  accepted_by: string | null
  revoked_at: Timestamp | null
  /** The invitation that replaced this one once it had expired (see migration 0004). */
  superseded_by: string | null
}

export interface IdempotencyKeysTable {
  scope: string
  key: string
  request_hash: string
  status: number
  response: JSONColumnType<object | null, string, string>
  created_at: Timestamp
}

/**
 * An agent registration (the auth.md layer, migration 0007). Its secrets are kept only as SHA-256
 * hex; a user code is held (non-null, unique) from the claim request until it is confirmed or replaced.
 */
export interface AgentRegistrationsTable {
  id: string
  type: 'service_auth' | 'anonymous'
  /** What people see it as: given at registration, or generated from the id (migration 0008). */
  name: string
  description: string | null
  /** Lower-cased. */
  login_hint: string | null
  pre_claim_scopes: string[]
  post_claim_scopes: string[]
  claim_token_hash: string
  claim_expires_at: Timestamp
  user_code_hash: string | null
  user_code_expires_at: Timestamp | null
  /** A claimed agent's pending request for more scopes, whose code is `user_code_hash` (migration 0009). */
  requested_scopes: string[] | null
  /** The `jti` of the one identity assertion that still works, hashed. */
  assertion_id_hash: string | null
  poll_interval_seconds: number
  last_polled_at: Timestamp | null
  claimed_by: string | null
  claimed_at: Timestamp | null
  redeemed_at: Timestamp | null
  revoked_at: Timestamp | null
  created_at: Timestamp
}

/** The database as Kysely sees it. */
export interface Database {
  users: UsersTable
  workspaces: WorkspacesTable
  memberships: MembershipsTable
  projects: ProjectsTable
  artifacts: ArtifactsTable
  contents: ContentsTable
  versions: VersionsTable
  credentials: CredentialsTable
  audit_events: AuditEventsTable
  idempotency_keys: IdempotencyKeysTable
  workspace_invitations: WorkspaceInvitationsTable
  user_identities: UserIdentitiesTable
  oauth_clients: OAuthClientsTable
  oauth_token_families: OAuthTokenFamiliesTable
  oauth_codes: OAuthCodesTable
  oauth_refresh_tokens: OAuthRefreshTokensTable
  agent_registrations: AgentRegistrationsTable
}
