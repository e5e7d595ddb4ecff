import type { Plan } from '../contract/schemas/account.ts'
import { scopes as allScopes, type Scope } from '../contract/scopes.ts'
import { operatorActor } from '../domain/audit.ts'
import { retentionAt } from '../domain/plans.ts'
import type { PrincipalUser } from '../domain/principal.ts'
import { reservedSlugs, usernameFromEmail } from '../domain/rules.ts'
import { newSecret, secretPrefixes } from '../domain/secrets.ts'
import type { AccountStore, ApiKeyStore, AuditPruner, WorkspaceStore } from '../ports/accounts.ts'
import type { WorkspacePlanRecord } from '../ports/records.ts'
import type { Clock, IdGenerator } from '../ports/runtime.ts'
import type { IdempotencyStore } from '../ports/stores.ts'
import { idempotencyWindowMs } from './idempotency.ts'

export interface OperatorDeps {
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly accounts: AccountStore
  readonly apiKeys: ApiKeyStore
  readonly workspaces: WorkspaceStore
  readonly auditPruner: AuditPruner
  readonly idempotency: IdempotencyStore
}

/** Username candidates for an email: `ada`, `ada-2`, … (reserved names get a `-user` suffix). */
export function usernameCandidates(email: string, count = 50): string[] {
  let base = usernameFromEmail(email)
  if (reservedSlugs.has(base)) base = `${base}-user`
  return Array.from({ length: count }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`))
}

const operatorVia = { surface: 'operator', credential: null, credentialId: null } as const

/**
 * The operator's way to a first credential: finds or creates the user (and their personal
 * workspace) and mints an API key. The secret is returned once and stored only as a hash.
 */
export async function issueOperatorToken(
  deps: OperatorDeps,
  input: { email: string; scopes?: readonly Scope[]; name?: string },
): Promise<{ secret: string; keyId: string; user: PrincipalUser; userCreated: boolean }> {
  const at = deps.clock.now()
  const email = input.email.trim().toLowerCase()
  const workspaceId = deps.ids.next('ws')
  const { user, created, personalWorkspaceId } = await deps.accounts.ensureUser({
    email,
    emailVerified: true,
    usernameCandidates: usernameCandidates(email),
    userId: deps.ids.next('usr'),
    workspaceId,
    at,
    audit: (u) => ({
      id: deps.ids.next('evt'),
      at,
      action: 'user.created',
      actor: operatorActor,
      via: operatorVia,
      workspaceId,
      artifactId: null,
      data: { userId: u.id, email: u.email, username: u.username },
    }),
  })
  const key = await newSecret(secretPrefixes.apiKey)
  const keyId = deps.ids.next('key')
  const scopes = input.scopes && input.scopes.length > 0 ? [...input.scopes] : [...allScopes]
  const name = input.name ?? 'operator token'
  await deps.apiKeys.create({
    id: keyId,
    userId: user.id,
    name,
    scopes,
    secretHash: key.hash,
    displayPrefix: key.display,
    expiresAt: null,
    at,
    guard: { credentialId: null, at },
    idempotency: null,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'api_key.created',
      actor: operatorActor,
      via: operatorVia,
      workspaceId: personalWorkspaceId,
      artifactId: null,
      data: { apiKeyId: keyId, name, scopes, userId: user.id },
    },
  })
  return { secret: key.secret, keyId, user, userCreated: created }
}

/** The operator sets a workspace's plan (which sets how long its audit trail is kept). */
export async function setWorkspacePlan(deps: OperatorDeps, input: { slug: string; plan: Plan }): Promise<WorkspacePlanRecord | null> {
  const at = deps.clock.now()
  return deps.workspaces.setPlan({
    slug: input.slug,
    plan: input.plan,
    audit: (workspace) => ({
      id: deps.ids.next('evt'),
      at,
      action: 'workspace.plan_changed',
      actor: operatorActor,
      via: operatorVia,
      workspaceId: workspace.id,
      artifactId: null,
      data: { from: workspace.plan, to: input.plan },
    }),
  })
}

/**
 * Deletes the audit events older than their workspace plan's retention. Run by the operator and on
 * a schedule inside the API; only one process prunes at a time (`skipped` for the others).
 */
export async function pruneAuditEvents(deps: Pick<OperatorDeps, 'clock' | 'auditPruner'>): Promise<{ pruned: number; skipped: boolean }> {
  return deps.auditPruner.prune(retentionAt(deps.clock.now()))
}

/** Deletes the idempotency records past their window (a day): run on the same schedule as the audit pruning. */
export async function expireIdempotencyRecords(deps: Pick<OperatorDeps, 'clock' | 'idempotency'>): Promise<number> {
  return deps.idempotency.expire(new Date(deps.clock.now().getTime() - idempotencyWindowMs))
}
