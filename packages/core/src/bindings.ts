import type { OperationInput, OperationOutput } from './contract/operation.ts'
import type { OperationId, Operations } from './contract/operations/index.ts'
import type { Caller } from './domain/principal.ts'
import { ok, type Result } from './domain/result.ts'
import { getArtifactAccess, updateArtifactAccess } from './use-cases/access-settings.ts'
import { listAgents, revokeAgent } from './use-cases/agents.ts'
import { createApiKey, listApiKeys, revokeApiKey } from './use-cases/api-keys.ts'
import { appendVersion, restoreVersion } from './use-cases/append-version.ts'
import { checkArtifactSlug, deleteArtifact, getArtifact, listMyArtifacts, previewArtifactUrl } from './use-cases/artifacts.ts'
import { listAuditEvents } from './use-cases/audit-events.ts'
import { listProjectArtifacts } from './use-cases/browse.ts'
import { createArtifact } from './use-cases/create-artifact.ts'
import type { CoreDeps } from './use-cases/deps.ts'
import { listEvents } from './use-cases/events.ts'
import { checkHealth } from './use-cases/health.ts'
import type { Written } from './use-cases/idempotency.ts'
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from './use-cases/invitations.ts'
import { getProfile, listMyInvitations, updateProfile } from './use-cases/profile.ts'
import { checkProjectSlug, createProject, listMyProjects, resolveProjectPath } from './use-cases/projects.ts'
import { type ContentRead, diffVersions, getArtifactChanges, getContent, listVersions } from './use-cases/read-versions.ts'
import { searchArtifacts } from './use-cases/search.ts'
import { createShareLink, listShareLinks, revokeShareLink } from './use-cases/share-links.ts'
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhookDelivery,
  rotateWebhookSecret,
} from './use-cases/webhooks.ts'
import {
  createWorkspace,
  listWorkspaceArtifacts,
  listWorkspaceAuditEvents,
  listWorkspaceMembers,
  listWorkspaceProjects,
  listWorkspaces,
} from './use-cases/workspaces.ts'

/**
 * The binding table: for every operation of the contract, which use-case runs it and with what.
 * It is transport-neutral: the REST routes, the MCP tools and the web pages all call these, after
 * their own parsing against the operation's schemas, and shape what comes back for their medium
 * (an HTTP status and headers, a tool result, a page). None of them restates which use-case an
 * operation runs, and a missing binding is a compile error (`Bindings`).
 */

/** What a transport passes besides the parsed input. */
export interface BindingOptions {
  /** The caller's key for a safely retried write (REST's `Idempotency-Key`). */
  readonly idempotencyKey?: string | undefined
  /** Aborted when the caller has gone away (or the server is closing): a long poll stops waiting. */
  readonly signal?: AbortSignal | undefined
}

/** What the bytes of a content read are, for a transport that caches (REST's ETag and Cache-Control). */
export type ContentIdentity = Omit<ContentRead, 'content'>

/** An operation's answer: its output, and what a transport may say about it. */
export interface Outcome<T> {
  readonly value: T
  /** A retried write answered from its idempotency record: nothing was written this time. */
  readonly replayed: boolean
  /** For content reads: which version's bytes these are and who may keep them. */
  readonly content?: ContentIdentity
  /**
   * A dry run (`dryRun=true` on a row with `dryRun`): nothing was written and `value` holds the
   * row's dry-run answer (its `dryRun.schema`), not its success body. REST answers it with 200.
   */
  readonly dryRun?: true
}

export type Binding<K extends OperationId> = (
  deps: CoreDeps,
  caller: Caller,
  input: OperationInput<Operations[K]>,
  options: BindingOptions,
) => Promise<Result<Outcome<OperationOutput<Operations[K]>>>>

/** One binding per operation. */
export type Bindings = { readonly [K in OperationId]: Binding<K> }

/** A read's (or an unconditional write's) result. */
function answer<T>(result: Result<T>): Result<Outcome<T>> {
  return result.ok ? ok({ value: result.value, replayed: false }) : result
}

type DryRunAnswer = { readonly dryRun: true }

/**
 * A write that may be a dry run (`dryRun=true` on a row with `dryRun`): a dry run's answer, told
 * apart by its `dryRun`, goes out as it is; any other result as the write presents it (`answer`,
 * `written`). The binding's type is the row's success body; a dry run's value is the row's
 * `dryRun.schema` (see `Outcome.dryRun`).
 */
function previewed<V extends object, T>(
  result: Result<V>,
  real: (result: Result<Exclude<V, DryRunAnswer>>) => Result<Outcome<T>>,
): Result<Outcome<T>> {
  if (result.ok && 'dryRun' in result.value) return ok({ value: result.value as unknown as T, replayed: false, dryRun: true })
  return real(result as Result<Exclude<V, DryRunAnswer>>)
}

/** A write that takes an idempotency key. */
function written<T>(result: Result<Written<T>>): Result<Outcome<T>> {
  return result.ok ? ok({ value: result.value.value, replayed: result.value.replayed }) : result
}

export const bindings: Bindings = {
  // System and profile.
  health: async (deps) => answer(await checkHealth(deps)),
  getProfile: async (deps, caller) => answer(await getProfile(deps, caller)),
  updateProfile: async (deps, caller, { body }) => answer(await updateProfile(deps, caller, body)),
  listMyInvitations: async (deps, caller, { query }) => answer(await listMyInvitations(deps, caller, query)),

  // API keys.
  listApiKeys: async (deps, caller, { query }) => answer(await listApiKeys(deps, caller, query)),
  createApiKey: async (deps, caller, { body }, { idempotencyKey }) => written(await createApiKey(deps, caller, body, idempotencyKey)),
  revokeApiKey: async (deps, caller, { params }) => answer(await revokeApiKey(deps, caller, params.apiKeyId)),

  // Agents (auth.md) the caller claimed.
  listAgents: async (deps, caller, { query }) => answer(await listAgents(deps, caller, query)),
  revokeAgent: async (deps, caller, { params }) => answer(await revokeAgent(deps, caller, params.agentId)),

  // Workspaces and invitations.
  listWorkspaces: async (deps, caller, { query }) => answer(await listWorkspaces(deps, caller, query)),
  createWorkspace: async (deps, caller, { body }, { idempotencyKey }) => written(await createWorkspace(deps, caller, body, idempotencyKey)),
  listWorkspaceMembers: async (deps, caller, { params, query }) =>
    answer(await listWorkspaceMembers(deps, caller, params.workspaceId, query)),
  listWorkspaceProjects: async (deps, caller, { params, query }) =>
    answer(await listWorkspaceProjects(deps, caller, params.workspaceId, query)),
  listWorkspaceArtifacts: async (deps, caller, { params, query }) =>
    answer(await listWorkspaceArtifacts(deps, caller, params.workspaceId, query)),
  listWorkspaceAuditEvents: async (deps, caller, { params, query }) =>
    answer(await listWorkspaceAuditEvents(deps, caller, params.workspaceId, query)),
  createInvitation: async (deps, caller, { params, body }, { idempotencyKey }) =>
    written(await createInvitation(deps, caller, params.workspaceId, body, idempotencyKey)),
  listInvitations: async (deps, caller, { params, query }) => answer(await listInvitations(deps, caller, params.workspaceId, query)),
  revokeInvitation: async (deps, caller, { params }) => answer(await revokeInvitation(deps, caller, params.invitationId)),
  acceptInvitation: async (deps, caller, { params }) => answer(await acceptInvitation(deps, caller, params.invitationId)),

  // Projects.
  createProject: async (deps, caller, { body }, { idempotencyKey }) => written(await createProject(deps, caller, body, idempotencyKey)),
  listMyProjects: async (deps, caller, { query }) => answer(await listMyProjects(deps, caller, query)),
  checkProjectSlug: async (deps, caller, { params }) => answer(await checkProjectSlug(deps, caller, params)),
  resolveProjectPath: async (deps, caller, { params }) => answer(await resolveProjectPath(deps, caller, params)),

  // Artifacts.
  createArtifact: async (deps, caller, { query, body }, { idempotencyKey }) =>
    previewed(await createArtifact(deps, caller, body, idempotencyKey, { dryRun: query.dryRun === true }), written),
  listMyArtifacts: async (deps, caller, { query }) => answer(await listMyArtifacts(deps, caller, query)),
  searchArtifacts: async (deps, caller, { query }) => answer(await searchArtifacts(deps, caller, query)),
  listProjectArtifacts: async (deps, caller, { params, query }) => answer(await listProjectArtifacts(deps, caller, params, query)),
  getArtifact: async (deps, caller, { params }) => answer(await getArtifact(deps, caller, { id: params.artifactId })),
  deleteArtifact: async (deps, caller, { params }) => answer(await deleteArtifact(deps, caller, params.artifactId)),
  checkArtifactSlug: async (deps, caller, { params }) => answer(await checkArtifactSlug(deps, caller, params)),
  previewArtifactUrl: async (deps, caller, { params }) => answer(await previewArtifactUrl(deps, caller, params)),
  resolveArtifactPath: async (deps, caller, { params }) =>
    answer(await getArtifact(deps, caller, { owner: params.owner, projectSlug: params.projectSlug, slug: params.slug })),

  // Versions.
  appendVersion: async (deps, caller, { params, query, body }, { idempotencyKey }) =>
    previewed(await appendVersion(deps, caller, params.artifactId, body, idempotencyKey, { dryRun: query.dryRun === true }), written),
  restoreVersion: async (deps, caller, { params, query, body }, { idempotencyKey }) =>
    previewed(
      await restoreVersion(deps, caller, params.artifactId, params.versionNumber, body, idempotencyKey, { dryRun: query.dryRun === true }),
      written,
    ),
  getContent: async (deps, caller, { params, query }) => {
    const read = await getContent(deps, caller, { artifactId: params.artifactId, version: query.version })
    if (!read.ok) return read
    const { content, ...identity } = read.value
    return ok({ value: content, replayed: false, content: identity })
  },
  listVersions: async (deps, caller, { params, query }) => answer(await listVersions(deps, caller, params.artifactId, query)),
  diffVersions: async (deps, caller, { params, query }) =>
    answer(await diffVersions(deps, caller, { artifactId: params.artifactId, from: query.from, to: query.to })),
  getArtifactChanges: async (deps, caller, { params, query }) => answer(await getArtifactChanges(deps, caller, params.artifactId, query)),

  // Access and share links.
  getArtifactAccess: async (deps, caller, { params }) => answer(await getArtifactAccess(deps, caller, params.artifactId)),
  updateArtifactAccess: async (deps, caller, { params, query, body }) =>
    previewed(await updateArtifactAccess(deps, caller, params.artifactId, body, { dryRun: query.dryRun === true }), answer),
  createShareLink: async (deps, caller, { params, body }, { idempotencyKey }) =>
    written(await createShareLink(deps, caller, params.artifactId, body, idempotencyKey)),
  listShareLinks: async (deps, caller, { params, query }) => answer(await listShareLinks(deps, caller, params.artifactId, query)),
  revokeShareLink: async (deps, caller, { params }) => answer(await revokeShareLink(deps, caller, params.shareLinkId)),

  // Audit.
  listAuditEvents: async (deps, caller, { query }) => answer(await listAuditEvents(deps, caller, query)),
  listEvents: async (deps, caller, { query }, { signal }) => answer(await listEvents(deps, caller, query, { signal })),
  createWebhook: async (deps, caller, { body }) => answer(await createWebhook(deps, caller, body)),
  listWebhooks: async (deps, caller, { query }) => answer(await listWebhooks(deps, caller, query)),
  deleteWebhook: async (deps, caller, { params }) => answer(await deleteWebhook(deps, caller, params.webhookId)),
  listWebhookDeliveries: async (deps, caller, { params, query }) =>
    answer(await listWebhookDeliveries(deps, caller, params.webhookId, query)),
  redeliverWebhookDelivery: async (deps, caller, { params }) => answer(await redeliverWebhookDelivery(deps, caller, params)),
  rotateWebhookSecret: async (deps, caller, { params }) => answer(await rotateWebhookSecret(deps, caller, params.webhookId)),
}
