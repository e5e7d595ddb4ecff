import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import { type ChangeKind, changeKinds } from '../contract/schemas/events.ts'
import type { CreateWebhookBody, Webhook, WebhookDelivery, WebhookWithSecret } from '../contract/schemas/webhook.ts'
import { WEBHOOK_RETRY_SECONDS } from '../contract/schemas/webhook.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import type { Caller, Principal } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { ChangeRecord } from '../ports/changes.ts'
import type { BehindWebhook, DeliveryRecord, NewDelivery, OwnerView, WebhookRecord } from '../ports/webhooks.ts'
import { admitAccount } from './access.ts'
import { mayReadEvenDeleted } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { admitFollow, presentChange } from './events.ts'
import { pageOfIds } from './paging.ts'

/**
 * Webhooks: a person's follow of an artifact or a project, delivered to a URL. Creating one
 * follows as `GET /api/events` would (the same admission); every change is then put to the one
 * policy as its owner, acting with every scope, at the moment it is turned into a delivery.
 */

const unseenWebhook = 'No such webhook, or it is not yours.'

export function presentWebhook(record: WebhookRecord): Webhook {
  return {
    id: record.id,
    url: record.url,
    artifactId: record.artifactId,
    projectId: record.projectId,
    events: [...record.kinds],
    description: record.description,
    status: record.status,
    statusReason: record.statusReason,
    secretRotations: record.rotation,
    createdAt: record.createdAt.toISOString(),
  }
}

export function presentDelivery(record: DeliveryRecord): WebhookDelivery {
  return {
    id: record.id,
    webhookId: record.webhookId,
    eventId: record.position === null ? null : String(record.position),
    kind: record.kind,
    status: record.status,
    nextAttemptAt: record.status === 'pending' && record.dueAt ? record.dueAt.toISOString() : null,
    createdAt: record.createdAt.toISOString(),
    deliveredAt: record.deliveredAt?.toISOString() ?? null,
    attempts: record.attempts.map((a) => ({ ...a })),
  }
}

function credentialIdOf(principal: Principal): string | null {
  return principal.kind === 'anonymous' ? null : principal.credentialId
}

/** The message of a change, as Standard Webhooks suggests: `type`, `timestamp`, `data`. */
export function changeMessage(event: ReturnType<typeof presentChange>): Record<string, unknown> {
  return { type: event.kind, timestamp: event.at, data: event }
}

/** Creates a webhook for what the caller may follow; answers it with its secret, shown once, and queues its ping. */
export async function createWebhook(deps: CoreDeps, caller: Caller, body: CreateWebhookBody): Promise<Result<WebhookWithSecret>> {
  const account = await admitAccount(deps, caller, 'webhook.manage')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const refusal = deps.webhookSecurity.refusal(body.url)
  if (refusal !== null)
    return fail('validation_failed', `The webhook URL is refused: ${refusal}.`, { errors: [{ path: '/body/url', message: refusal }] })
  if ((body.artifact === undefined) === (body.project === undefined))
    return fail('validation_failed', 'Name exactly one of `artifact` (an id or owner/project/slug) or `project` (owner/project).', {
      errors: [{ path: '/body', message: 'needs exactly one of artifact or project' }],
    })
  // Following takes what `GET /api/events` takes: the same admission, the same 404 for what the caller may not read.
  const scope = await admitFollow(
    deps,
    caller,
    body.artifact === undefined ? { project: body.project } : { artifact: body.artifact },
    '/body',
  )
  if (!scope.ok) return scope
  const profile = await deps.accounts.profile(userId)
  if (profile === null) return fail('invalid_token', 'The account behind this credential no longer exists.')
  const at = deps.clock.now()
  const head = (await deps.changes.after(scope.value, 0, 0)).head
  const record: WebhookRecord = {
    id: deps.ids.next('whk'),
    userId,
    artifactId: 'artifactId' in scope.value ? scope.value.artifactId : null,
    projectId: 'projectId' in scope.value ? scope.value.projectId : null,
    url: body.url,
    kinds: body.events ? [...body.events] : [...changeKinds],
    description: body.description ?? '',
    rotation: 0,
    status: 'active',
    statusReason: null,
    cursor: head,
    createdAt: at,
  }
  const ping: NewDelivery = {
    id: deps.ids.next('whd'),
    position: null,
    kind: 'webhook.ping',
    payload: { type: 'webhook.ping', timestamp: at.toISOString(), data: { webhookId: record.id, url: record.url } },
    dueAt: at,
  }
  const created = await deps.webhooks.create({
    webhook: record,
    ping,
    guard: { credentialId: credentialIdOf(principal), at },
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'webhook.created',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: profile.personalWorkspaceId,
      artifactId: null,
      data: { webhookId: record.id, url: record.url, artifactId: record.artifactId, projectId: record.projectId, userId },
    },
  })
  if (!created.ok) return fail('forbidden', 'Your credential changed while creating the webhook; nothing was written.')
  return ok({ webhook: presentWebhook(record), secret: await deps.webhookSecurity.secret(record.id, 0) })
}

export async function listWebhooks(deps: CoreDeps, caller: Caller, query: PageQuery): Promise<Result<PageOf<Webhook>>> {
  const account = await admitAccount(deps, caller, 'webhook.manage')
  if (!account.ok) return account
  return pageOfIds(query, 'whk', (page) => deps.webhooks.listForUser(account.value.userId, page), presentWebhook)
}

/** A change to one of the caller's webhooks, audited in the caller's account. */
async function changeOwn(
  deps: CoreDeps,
  caller: Caller,
  webhookId: string,
  action: 'webhook.deleted' | 'webhook.secret_rotated',
  write: typeof deps.webhooks.remove,
): Promise<Result<WebhookRecord>> {
  const account = await admitAccount(deps, caller, 'webhook.manage')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const profile = await deps.accounts.profile(userId)
  if (profile === null) return fail('invalid_token', 'The account behind this credential no longer exists.')
  const at = deps.clock.now()
  const changed = await write({
    userId,
    webhookId,
    audit: {
      id: deps.ids.next('evt'),
      at,
      action,
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: profile.personalWorkspaceId,
      artifactId: null,
      data: { webhookId, userId },
    },
  })
  return changed === null ? fail('not_found', unseenWebhook) : ok(changed)
}

export async function deleteWebhook(deps: CoreDeps, caller: Caller, webhookId: string): Promise<Result<Webhook>> {
  const removed = await changeOwn(deps, caller, webhookId, 'webhook.deleted', deps.webhooks.remove)
  return removed.ok ? ok(presentWebhook(removed.value)) : removed
}

export async function rotateWebhookSecret(deps: CoreDeps, caller: Caller, webhookId: string): Promise<Result<WebhookWithSecret>> {
  const rotated = await changeOwn(deps, caller, webhookId, 'webhook.secret_rotated', deps.webhooks.rotate)
  if (!rotated.ok) return rotated
  return ok({ webhook: presentWebhook(rotated.value), secret: await deps.webhookSecurity.secret(rotated.value.id, rotated.value.rotation) })
}

/** One of the caller's webhooks, or the one 404. */
async function ownWebhook(deps: CoreDeps, caller: Caller, webhookId: string): Promise<Result<WebhookRecord>> {
  const account = await admitAccount(deps, caller, 'webhook.manage')
  if (!account.ok) return account
  const found = await deps.webhooks.find(account.value.userId, webhookId)
  return found === null ? fail('not_found', unseenWebhook) : ok(found)
}

export async function listWebhookDeliveries(
  deps: CoreDeps,
  caller: Caller,
  webhookId: string,
  query: PageQuery,
): Promise<Result<PageOf<WebhookDelivery>>> {
  const webhook = await ownWebhook(deps, caller, webhookId)
  if (!webhook.ok) return webhook
  return pageOfIds(query, 'whd', (page) => deps.webhooks.deliveries(webhook.value.id, page), presentDelivery)
}

export async function redeliverWebhookDelivery(
  deps: CoreDeps,
  caller: Caller,
  params: { webhookId: string; deliveryId: string },
): Promise<Result<WebhookDelivery>> {
  const webhook = await ownWebhook(deps, caller, params.webhookId)
  if (!webhook.ok) return webhook
  if (webhook.value.status === 'disabled')
    return fail(
      'forbidden',
      `The webhook is disabled (${webhook.value.statusReason ?? 'no reason given'}); create a new one to deliver again.`,
    )
  const again = await deps.webhooks.redeliver(webhook.value.id, params.deliveryId, deps.clock.now())
  return again === null ? fail('not_found', 'No such delivery of this webhook.') : ok(presentDelivery(again))
}

/** When a failed attempt is tried again: after the retry schedule's next step, or never (null). */
export function nextAttemptAt(attemptsMade: number, at: Date): Date | null {
  const seconds = WEBHOOK_RETRY_SECONDS[attemptsMade - 1]
  return seconds === undefined ? null : new Date(at.getTime() + seconds * 1000)
}

/**
 * What a webhook's new changes become: a delivery for each the owner may read now (decided by the
 * one policy, as the person with every scope), of a kind it asked for. A webhook whose owner may
 * no longer read what it follows (the artifact, or the project's workspace) is to be disabled,
 * with the reason its log shows.
 */
export function planDeliveries(
  deps: Pick<CoreDeps, 'policy' | 'ids'>,
  behind: BehindWebhook,
  changes: readonly ChangeRecord[],
  views: ReadonlyMap<string, OwnerView>,
  at: Date,
): { readonly deliveries: NewDelivery[]; readonly disable: string | null } {
  const owner: Principal = { kind: 'session', credentialId: `webhook:${behind.webhook.id}`, user: behind.owner, scopes: 'all' }
  const { webhook } = behind
  if (webhook.projectId !== null && behind.projectRole === null)
    return { deliveries: [], disable: 'its owner is no longer a member of the project’s workspace' }
  const deliveries: NewDelivery[] = []
  for (const change of changes) {
    const view = views.get(change.artifactId)
    const seen = view ? mayReadEvenDeleted(deps, owner, view.artifact, view.role, 'artifact.read') : null
    if (seen === null || !seen.ok) {
      if (webhook.artifactId === change.artifactId) return { deliveries, disable: 'its owner may no longer read the artifact it follows' }
      continue
    }
    if (!webhook.kinds.includes(change.kind as ChangeKind)) continue
    const event = presentChange(change, view?.artifact as OwnerView['artifact'])
    deliveries.push({ id: deps.ids.next('whd'), position: change.position, kind: change.kind, payload: changeMessage(event), dueAt: at })
  }
  return { deliveries, disable: null }
}
