/**
 * `@quire/core/contract`: the isomorphic REST contract (TypeBox schemas, the operation table,
 * error codes, scopes and actions). It depends on `typebox` only and is safe in browsers.
 */
export { type Action, Actions, actions, scopeFor } from './actions.ts'
export { type AuditAction, accountActions, auditActions, workspaceActions } from './audit-actions.ts'
export { type ErrorCode, ErrorCodes, errorCodes, FieldError, HandOff, Problem, problemType } from './errors.ts'
export { type FieldLimits, fieldLimits } from './field-limits.ts'
export { schemaMapKeywords, subschemaKeywords } from './json-schema.ts'
export { linkRoleActions } from './link-roles.ts'
export {
  actionsOf,
  commonErrors,
  defineOperation,
  errorsOf,
  type HttpMethod,
  type OperationDryRunOutput,
  type OperationHints,
  type OperationInput,
  type OperationOutput,
  type OperationSpec,
  scopesOf,
} from './operation.ts'
export { type OperationId, type Operations, operationIds, operations } from './operations/index.ts'
export {
  AccessDryRun,
  AccessSwitches,
  ArtifactAccessSettings,
  MAX_VIEWER_EMAILS,
  UpdateAccessBody,
  ViewerEmails,
} from './schemas/access.ts'
export { type Plan, PlanSchema, Profile, plans, UpdateProfileBody } from './schemas/account.ts'
export { Agent, AgentId, AgentParams } from './schemas/agent.ts'
export { ApiKey, ApiKeyId, ApiKeyParams, CreateApiKeyBody, CreatedApiKey } from './schemas/api-key.ts'
export {
  Artifact,
  ArtifactDryRun,
  ArtifactParams,
  ArtifactPathParams,
  ArtifactRead,
  ArtifactSlugAvailability,
  type ArtifactType,
  ArtifactTypeSchema,
  artifactTypes,
  CreateArtifactBody,
  CreateArtifactQuery,
  DeletedArtifact,
  SlugPreview,
  Visibility,
} from './schemas/artifact.ts'
export { AuditActionFilter, AuditEvent, AuditQuery, AuditTrailPage, WorkspaceAuditQuery } from './schemas/audit.ts'
export {
  ActorRef,
  ArtifactId,
  AvailabilityReason,
  Email,
  IdempotencyKey,
  Page,
  type PageOf,
  PageQuery,
  ProjectId,
  Sha256,
  SLUG_PATTERN,
  Slug,
  Timestamp,
  WorkspaceId,
} from './schemas/common.ts'
export {
  ChangeEvent,
  type ChangeKind,
  changeKinds,
  EVENTS_MAX_WAIT_SECONDS,
  EventBatch,
  EventId,
  EventsQuery,
} from './schemas/events.ts'
export { Health } from './schemas/health.ts'
export { CreateProjectBody, Project, ProjectPathParams, ProjectSlugAvailability, ProjectSlugParams } from './schemas/project.ts'
export {
  SEARCH_QUERY_MAX_LENGTH,
  SEARCH_QUERY_MAX_TERMS,
  SEARCH_SNIPPETS_PER_HIT,
  type SearchField,
  SearchHit,
  SearchQuery,
  Snippet,
  SnippetSegment,
  searchFields,
} from './schemas/search.ts'
export {
  CreatedShareLink,
  CreateShareLinkBody,
  ShareLink,
  ShareLinkId,
  ShareLinkParams,
  ShareLinkRole,
  ShareLinkStatus,
} from './schemas/share-link.ts'
export {
  AppendVersionBody,
  ArtifactChanges,
  CHANGES_DIFF_MAX_BYTES,
  ChangesQuery,
  ContentQuery,
  DiffQuery,
  DiffWithheld,
  DryRunQuery,
  MAX_VERSION_NUMBER,
  RestoreVersionBody,
  Version,
  VersionContent,
  VersionDiff,
  VersionDryRun,
  VersionNumber,
  VersionParams,
} from './schemas/version.ts'
export {
  CreateWebhookBody,
  DeliveryAttempt,
  DeliveryParams,
  WEBHOOK_RETRY_SECONDS,
  Webhook,
  WebhookDelivery,
  WebhookParams,
  WebhookWithSecret,
} from './schemas/webhook.ts'
export {
  CreateInvitationBody,
  CreateWorkspaceBody,
  Invitation,
  InvitationId,
  InvitationParams,
  InvitationRole,
  InvitationStatus,
  Member,
  RoleSchema,
  Workspace,
  WorkspaceParams,
} from './schemas/workspace.ts'
export { isScope, type Scope, ScopeSchema, scopes } from './scopes.ts'
export { secretPrefixes } from './secret-prefixes.ts'
export { illFormedText, isWellFormedText, type TextIssue, textProblem } from './text.ts'
