/**
 * `@quire/core`: the domain. Use-cases over ports, the principal and audit model, and (re-exported
 * from `@quire/core/contract`) the REST contract. No I/O: storage, HTTP and configuration are
 * passed in by the composition root.
 */

// The binding table: which use-case runs each operation, for every transport.
export {
  type Binding,
  type BindingOptions,
  type Bindings,
  bindings,
  type ContentIdentity,
  type Outcome,
} from './bindings.ts'
// Contract (also available alone, browser-safe, as `@quire/core/contract`).
export {
  type Action,
  Actions,
  ActorRef,
  type ArtifactType,
  type AuditAction,
  accountActions,
  actions,
  actionsOf,
  artifactTypes,
  auditActions,
  CHANGES_DIFF_MAX_BYTES,
  ChangeEvent,
  type ChangeKind,
  changeKinds,
  type ErrorCode,
  ErrorCodes,
  EVENTS_MAX_WAIT_SECONDS,
  EventBatch,
  EventsQuery,
  errorCodes,
  errorsOf,
  type FieldLimits,
  fieldLimits,
  HandOff,
  IdempotencyKey,
  illFormedText,
  isScope,
  isWellFormedText,
  linkRoleActions,
  type OperationDryRunOutput,
  type OperationId,
  type OperationInput,
  type OperationOutput,
  type OperationSpec,
  type Operations,
  operationIds,
  operations,
  type Plan,
  Problem,
  plans,
  problemType,
  type Scope,
  SEARCH_QUERY_MAX_LENGTH,
  SEARCH_QUERY_MAX_TERMS,
  type SearchHit,
  type Snippet,
  type SnippetSegment,
  scopeFor,
  scopes,
  scopesOf,
  type TextIssue,
  textProblem,
  WEBHOOK_RETRY_SECONDS,
  WebhookDelivery,
  workspaceActions,
} from './contract/index.ts'
export { type UnifiedDiff, type UnifiedDiffOptions, unifiedDiff } from './diff/unified-diff.ts'
export {
  type AgentTextCheck,
  agentDescriptionMaxLength,
  agentNameMaxLength,
  checkAgentText,
  generatedAgentName,
} from './domain/agent-names.ts'
// Domain model.
export {
  type AuditEventDraft,
  type AuditVia,
  actorOf,
  agentActor,
  operatorActor,
  systemActor,
  viaOf,
} from './domain/audit.ts'
export { artifactTypeOf, baseName, fileExtensions, firstHeading, isArtifactType, slugOfFileName, titleOfFile } from './domain/file-rules.ts'
export { canonicalJson, sha256Base64Url, sha256Hex } from './domain/hash.ts'
export { invalidCredential, unseen } from './domain/hidden.ts'
export { createIdGenerator, systemClock } from './domain/ids.ts'
export {
  oauthLifetimes,
  parseScopes,
  pkceVerifierPattern,
  redirectUriMatches,
  redirectUriProblem,
  sameResource,
} from './domain/oauth-rules.ts'
export { auditRetentionDays, type Retention, retentionAt } from './domain/plans.ts'
export type { Authentication, Decision, DenyCode, Grant, Policy, Resource, Role } from './domain/policy.ts'
export {
  type Caller,
  type CredentialKind,
  type CredentialRecord,
  type PresentedCredential,
  type Principal,
  type PrincipalKind,
  type PrincipalUser,
  type Surface,
  userOf,
} from './domain/principal.ts'
export { type Failure, fail, ok, type Result } from './domain/result.ts'
export {
  checkContentSize,
  defaultLimits,
  type Limits,
  reservedProjectSlugs,
  reservedSlugs,
  type SlugKind,
  slugCandidates,
  slugify,
  slugProblem,
  slugSuggestionCount,
  suggestSlugs,
  usernameFromEmail,
  utf8Length,
  webOwnerPaths,
  webOwnerSegments,
  webPaths,
  webTopLevelSegments,
} from './domain/rules.ts'
export { type Highlighter, matchRanges, type SnippetSource, searchSnippets } from './domain/search-snippets.ts'
export {
  needsSubstring,
  parseSearchQuery,
  RESIDUE_MAX_LENGTH,
  type SearchPlan,
  type SubstringAlternative,
  searchResidue,
} from './domain/search-text.ts'
export { newSecret, secretPrefixes } from './domain/secrets.ts'
export { normalizeViewerEmails, shareLinkExpiry } from './domain/sharing-rules.ts'
// Ports.
export type {
  AcceptInvitationCommand,
  AccountStore,
  ApiKeyStore,
  AuditPruner,
  CreateApiKeyCommand,
  CreateInvitationCommand,
  CreateInvitationOutcome,
  CreateWorkspaceCommand,
  CredentialGuard,
  EnsureUserCommand,
  InvitationStore,
  RenameUserCommand,
  RevokeApiKeyCommand,
  RevokeInvitationCommand,
  SetPlanCommand,
  WorkspaceContext,
  WorkspaceStore,
} from './ports/accounts.ts'
export type { Admission, AdmissionCache } from './ports/admissions.ts'
export type {
  AgentOwner,
  AgentRegistrationRecord,
  AgentSelfCredential,
  AgentStore,
  AgentSummaryRecord,
  AgentTokenDraft,
  AgentType,
  ApproveScopeRequestCommand,
  ConfirmClaimCommand,
  ConfirmClaimOutcome,
  CreateRegistrationCommand,
  ExchangeAssertionCommand,
  ExchangeAssertionOutcome,
  RedeemClaimCommand,
  RedeemClaimOutcome,
  RevokeSelfCommand,
  RevokeSelfOutcome,
  StartClaimCommand,
  StartScopeRequestCommand,
} from './ports/agents.ts'
export type { ChangeRecord, ChangeScope, ChangeStore, ChangesAfter } from './ports/changes.ts'
export type { CoreStores } from './ports/core-stores.ts'
export type { PreviewLink, PreviewLinks, PreviewTarget } from './ports/previews.ts'
export type {
  AccessSettingsRecord,
  ApiKeyRecord,
  ArtifactAccess,
  ArtifactContext,
  ArtifactRecord,
  ContentRecord,
  IdempotencyDraft,
  IdempotencyRecord,
  InvitationRecord,
  MembershipRecord,
  NamespaceContext,
  ProfileRecord,
  ProjectRecord,
  ShareLinkRecord,
  VersionContext,
  VersionRecord,
  WorkspacePlanRecord,
  WorkspaceRecord,
  WorkspaceSummary,
} from './ports/records.ts'
export type { Clock, IdGenerator, IdPrefix, Sha256 } from './ports/runtime.ts'
export type { SearchRequest, SearchResume, SearchRow, SearchStore } from './ports/search.ts'
export type {
  AuthorizationCodeRecord,
  ConsumeCodeOutcome,
  CreateSessionCommand,
  GrantAudit,
  GrantChange,
  OAuthClientRecord,
  OAuthStore,
  OidcIdentity,
  PresentedCode,
  ResolveOidcUserCommand,
  RotateOutcome,
  SignInStore,
  TokenPairDraft,
} from './ports/sign-in.ts'
export type {
  AppendOutcome,
  AppendVersionCommand,
  ArtifactListScope,
  ArtifactStore,
  ArtifactTarget,
  AuditStore,
  CreateArtifactCommand,
  CreateProjectCommand,
  CreateShareLinkCommand,
  CredentialStore,
  GuardedOutcome,
  HealthProbe,
  IdempotencyStore,
  PageRequest,
  ProjectStore,
  RevokeShareLinkCommand,
  ShareLinkStore,
  SoftDeleteCommand,
  UpdateAccessCommand,
  WriteGuard,
  WriteRefusal,
} from './ports/stores.ts'
export type {
  BehindWebhook,
  ClaimedDelivery,
  DeliveryAttemptRecord,
  DeliveryRecord,
  DeliveryStatus,
  NewDelivery,
  OwnerView,
  WebhookOwner,
  WebhookRecord,
  WebhookSecurity,
  WebhookStore,
} from './ports/webhooks.ts'
// Use-cases.
export { identify } from './use-cases/access.ts'
export { getArtifactAccess, updateArtifactAccess } from './use-cases/access-settings.ts'
export { listAgents, presentAgent, revokeAgent } from './use-cases/agents.ts'
export { createApiKey, listApiKeys, revokeApiKey } from './use-cases/api-keys.ts'
export { appendVersion, restoreVersion } from './use-cases/append-version.ts'
export {
  type ArtifactPermissionAction,
  type ArtifactPermissions,
  artifactPermissionActions,
  getArtifactPermissions,
} from './use-cases/artifact-permissions.ts'
export { checkArtifactSlug, deleteArtifact, getArtifact, listMyArtifacts, previewArtifactUrl } from './use-cases/artifacts.ts'
export { listAuditEvents, presentAuditEvent } from './use-cases/audit-events.ts'
export { browseNamespace, listProjectArtifacts, type NamespaceListing, type NamespaceOwner } from './use-cases/browse.ts'
export { createArtifact } from './use-cases/create-artifact.ts'
export type { CoreConfig, CoreDeps } from './use-cases/deps.ts'
export { type FollowOptions, listEvents, presentChange } from './use-cases/events.ts'
export { type AgentLayerConfig, type HandOffPlace, personPagePath, withHandOff } from './use-cases/hand-off.ts'
export { checkHealth } from './use-cases/health.ts'
export { idempotencyWindowMs, secretShownOnce, type Written } from './use-cases/idempotency.ts'
export { acceptInvitation, createInvitation, INVITATION_DAYS, listInvitations, revokeInvitation } from './use-cases/invitations.ts'
export {
  getNamespacePermissions,
  NAMESPACE_PERMISSIONS_LIMIT,
  type NamespacePermissionAction,
  type NamespacePermissions,
  namespacePermissionActions,
} from './use-cases/namespace-permissions.ts'
export {
  type AuthorizationRefusal,
  type AuthorizationRequest,
  approveAuthorization,
  authorizationErrorRedirect,
  checkAuthorizationRequest,
  denyAuthorization,
} from './use-cases/oauth/authorize.ts'
export { type RegisteredClient, registerOAuthClient } from './use-cases/oauth/clients.ts'
export { authorizationServerMetadata, protectedResourceMetadata } from './use-cases/oauth/metadata.ts'
export {
  type OAuthError,
  type OAuthErrorCode,
  type OAuthResult,
  type OAuthServerConfig,
  oauthFail,
  oauthOk,
  oauthServerConfig,
} from './use-cases/oauth/oauth-result.ts'
export { exchangeToken, revokeOAuthToken, type TokenResponse } from './use-cases/oauth/tokens.ts'
export {
  expireIdempotencyRecords,
  issueOperatorToken,
  type OperatorDeps,
  pruneAuditEvents,
  setWorkspacePlan,
  usernameCandidates,
} from './use-cases/operator.ts'
export {
  contentOriginTypes,
  openPreview,
  type PreviewDocument,
  type PreviewFields,
  previewFields,
  rendersOnContentOrigin,
} from './use-cases/previews.ts'
export { getProfile, listMyInvitations, updateProfile } from './use-cases/profile.ts'
export { checkProjectSlug, createProject, listMyProjects, resolveProjectPath } from './use-cases/projects.ts'
export { type ContentRead, diffVersions, getContent, listVersions } from './use-cases/read-versions.ts'
export { requestScope } from './use-cases/request-scope.ts'
export { searchArtifacts } from './use-cases/search.ts'
export { createShareLink, listShareLinks, revokeShareLink, shareLinkUrl } from './use-cases/share-links.ts'
export { sessionPrincipal, signInWithOidc, signOut } from './use-cases/sign-in.ts'
export { nextAttemptAt, planDeliveries } from './use-cases/webhooks.ts'
export {
  createWorkspace,
  listWorkspaceArtifacts,
  listWorkspaceAuditEvents,
  listWorkspaceMembers,
  listWorkspaceProjects,
  listWorkspaces,
} from './use-cases/workspaces.ts'
// The one validator of every surface's input (REST, MCP, web forms).
export {
  type Check,
  type CheckOptions,
  type CheckResult,
  checkInput,
  checkOf,
  type FieldError,
  firstPerField,
  formatChecks,
  IdempotencyHeaders,
  type InputCheckResult,
  type InputPart,
  type InputSchemas,
  inputParts,
  inputSchemasOf,
  NoQuery,
  partCheckOf,
} from './validation/index.ts'
