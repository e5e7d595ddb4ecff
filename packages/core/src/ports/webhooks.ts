import type { ChangeKind } from '../contract/schemas/events.ts'
import type { AuditEventDraft } from '../domain/audit.ts'
import type { Role } from '../domain/policy.ts'
import type { ArtifactRecord } from './records.ts'
import type { PageRequest } from './stores.ts'

/** A webhook as stored: whose, what it follows, where it delivers, which secret it signs with. */
export interface WebhookRecord {
  readonly id: string
  readonly userId: string
  readonly artifactId: string | null
  readonly projectId: string | null
  readonly url: string
  readonly kinds: readonly ChangeKind[]
  readonly description: string
  readonly rotation: number
  readonly status: 'active' | 'disabled'
  readonly statusReason: string | null
  /** The last change turned into deliveries. */
  readonly cursor: number
  readonly createdAt: Date
}

export interface DeliveryAttemptRecord {
  readonly at: string
  readonly statusCode: number | null
  readonly durationMs: number
  readonly error: string | null
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'stopped'

export interface DeliveryRecord {
  readonly id: string
  readonly webhookId: string
  /** The change delivered; null for the ping. */
  readonly position: number | null
  readonly kind: string
  readonly payload: Readonly<Record<string, unknown>>
  readonly status: DeliveryStatus
  readonly dueAt: Date | null
  readonly attempts: readonly DeliveryAttemptRecord[]
  readonly createdAt: Date
  readonly deliveredAt: Date | null
}

/** A new message to deliver. */
export interface NewDelivery {
  readonly id: string
  readonly position: number | null
  readonly kind: string
  readonly payload: Readonly<Record<string, unknown>>
  readonly dueAt: Date
}

/** What the owner of a webhook may see of an artifact now: the facts the policy decides on. */
export interface OwnerView {
  readonly artifact: ArtifactRecord
  readonly role: Role | null
}

/** The owner of a webhook, as the policy sees a person acting with every scope. */
export interface WebhookOwner {
  readonly id: string
  readonly email: string
  readonly emailVerified: boolean
  readonly username: string
}

/** A webhook claimed by one process to turn its new changes into deliveries. */
export interface BehindWebhook {
  readonly webhook: WebhookRecord
  readonly owner: WebhookOwner
  /** The project followed's membership of the owner (null: not a member, or an artifact webhook). */
  readonly projectRole: Role | null
}

/** A delivery claimed to send now, with what signs it. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRecord
  readonly url: string
  readonly rotation: number
}

export interface WebhookStore {
  /** The webhook, its ping and its audit event, while the guard holds. */
  create(command: {
    readonly webhook: WebhookRecord
    readonly ping: NewDelivery
    /** The credential creating it must still be live at `at`. */
    readonly guard: { readonly credentialId: string | null; readonly at: Date }
    readonly audit: AuditEventDraft
  }): Promise<{ readonly ok: boolean }>
  listForUser(userId: string, page: PageRequest): Promise<WebhookRecord[]>
  find(userId: string, webhookId: string): Promise<WebhookRecord | null>
  remove(command: { readonly userId: string; readonly webhookId: string; readonly audit: AuditEventDraft }): Promise<WebhookRecord | null>
  rotate(command: { readonly userId: string; readonly webhookId: string; readonly audit: AuditEventDraft }): Promise<WebhookRecord | null>
  deliveries(webhookId: string, page: PageRequest): Promise<DeliveryRecord[]>
  /** Makes a delivery due now again (the same message id); null when the webhook has no such delivery. */
  redeliver(webhookId: string, deliveryId: string, at: Date): Promise<DeliveryRecord | null>

  // The delivery worker's.
  /** Active webhooks whose cursor is behind `head`, oldest cursor first. */
  behind(head: number, limit: number): Promise<BehindWebhook[]>
  /** The owner's view of each artifact. */
  ownerViews(userId: string, artifactIds: readonly string[]): Promise<Map<string, OwnerView>>
  /** Adds the deliveries and moves the cursor, if it is still where it was read. */
  fanOut(webhookId: string, from: number, to: number, deliveries: readonly NewDelivery[]): Promise<void>
  /**
   * Disables a webhook, stops what it had pending, and says why in its log: a `webhook.disabled`
   * entry (`noteId`) whose one attempt carries the reason.
   */
  disable(webhookId: string, reason: string, at: Date, noteId: string): Promise<void>
  /** Pending deliveries due by `at`, each claimed (its due time pushed past `leaseUntil`) so no other process sends it meanwhile. */
  claimDue(at: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]>
  /** Logs an attempt and sets the delivery's state, in one statement. */
  recordAttempt(
    deliveryId: string,
    attempt: DeliveryAttemptRecord,
    next: { readonly status: DeliveryStatus; readonly dueAt: Date | null; readonly deliveredAt: Date | null },
  ): Promise<void>
  /** The server's signing key, made once and kept (when none is configured). */
  signingKey(make: () => string): Promise<string>
}

/** What a webhook may target, and its signing secret: the runtime's, holding the server key. */
export interface WebhookSecurity {
  /** Why a URL may not be a webhook's target (a literal loopback, private, link-local… address), or null. */
  refusal(url: string): string | null
  /** The signing secret (`whsec_…`) of a webhook at a rotation, derived from the server key. */
  secret(webhookId: string, rotation: number): Promise<string>
}
