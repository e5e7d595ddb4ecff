import { type Static, Type } from 'typebox'
import { ArtifactId, PathSegment, ProjectId, Text, Timestamp } from './common.ts'
import { changeKinds, EventId } from './events.ts'

/** How long a webhook's delivery is retried: after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (a day in all). */
export const WEBHOOK_RETRY_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const

export const WebhookId = Type.String({ pattern: '^whk_[0-9a-z]{26}$', description: 'Webhook identifier (`whk_…`).' })
export const DeliveryId = Type.String({ pattern: '^whd_[0-9a-z]{26}$', description: 'Delivery identifier (`whd_…`).' })

export const WebhookKind = Type.Enum(changeKinds, { description: 'A kind of change, as events name it.' })

export const Webhook = Type.Object({
  id: WebhookId,
  url: Type.String({ description: 'Where deliveries are POSTed.' }),
  artifactId: Type.Union([ArtifactId, Type.Null()], { description: 'The artifact followed; null when a project is.' }),
  projectId: Type.Union([ProjectId, Type.Null()], { description: 'The project followed; null when an artifact is.' }),
  events: Type.Array(WebhookKind, { description: 'The kinds of change delivered.' }),
  description: Type.String({ description: 'The note given at creation (empty when none).' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
    description: '`disabled` after the receiver answered 410 Gone, or when its owner lost access to what it follows (`statusReason`).',
  }),
  statusReason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is disabled; null while active.' }),
  secretRotations: Type.Integer({ minimum: 0, description: 'How many times the secret was rotated.' }),
  createdAt: { ...Timestamp, description: 'When it was created.' },
})
export type Webhook = Static<typeof Webhook>

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 8,
      maxLength: 2000,
      pattern: '^https?://',
      description:
        'An http(s) URL. Loopback, private, link-local (the metadata address included), unique-local and IPv4-mapped addresses are refused, when given and when connected to; redirects are not followed.',
    }),
    artifact: Type.Optional(
      Type.String({ minLength: 1, maxLength: 400, description: 'Follow one artifact: its id (`art_…`) or `owner/project/slug`.' }),
    ),
    project: Type.Optional(Type.String({ minLength: 3, maxLength: 200, description: 'Follow a project: `owner/project` (members only).' })),
    events: Type.Optional(
      Type.Array(WebhookKind, { minItems: 1, uniqueItems: true, description: 'The kinds of change to deliver (default: all).' }),
    ),
    description: Type.Optional(Text({ maxLength: 200, description: 'A note for people.' })),
  },
  { additionalProperties: false },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const WebhookWithSecret = Type.Object({
  webhook: { ...Webhook, description: 'The webhook.' },
  secret: Type.String({
    description:
      'The signing secret (`whsec_…`, Standard Webhooks): shown once, never stored (it is derived again to sign). Verify `webhook-signature` with it.',
  }),
})
export type WebhookWithSecret = Static<typeof WebhookWithSecret>

export const WebhookParams = Type.Object(
  { webhookId: { ...PathSegment, description: 'Webhook identifier (`whk_…`).' } },
  { additionalProperties: false },
)
export type WebhookParams = Static<typeof WebhookParams>

export const DeliveryParams = Type.Object(
  {
    webhookId: { ...PathSegment, description: 'Webhook identifier (`whk_…`).' },
    deliveryId: { ...PathSegment, description: 'Delivery identifier (`whd_…`).' },
  },
  { additionalProperties: false },
)
export type DeliveryParams = Static<typeof DeliveryParams>

export const DeliveryAttempt = Type.Object({
  at: { ...Timestamp, description: 'When the attempt was made.' },
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status; null when none came." }),
  durationMs: Type.Integer({ minimum: 0, description: 'From connecting to the end of the answer, in milliseconds.' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'What went wrong (a refused address, a timeout, a status); null on success.',
  }),
})

export const WebhookDelivery = Type.Object({
  id: { ...DeliveryId, description: 'The message id: `webhook-id` of every attempt, the same on retries and redeliveries.' },
  webhookId: WebhookId,
  eventId: Type.Union([EventId, Type.Null()], { description: 'The event delivered; null for the ping sent on creation.' }),
  kind: Type.String({
    description:
      "The kind of change; `webhook.ping` (sent on creation); `webhook.disabled` (the log's note of why the webhook stopped, in its attempt's `error`).",
  }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('stopped')], {
    description:
      '`pending`: due at `nextAttemptAt`; `delivered`: a 2xx came; `failed`: every retry failed (a day), or the receiver said 410; `stopped`: the webhook was disabled before it went out.',
  }),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When it is tried next, while pending; null otherwise.' }),
  createdAt: { ...Timestamp, description: 'When the message was made.' },
  deliveredAt: Type.Union([Timestamp, Type.Null()], { description: 'When a 2xx came; null until then.' }),
  attempts: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first.' }),
})
export type WebhookDelivery = Static<typeof WebhookDelivery>
