import { linkRoleActions } from '../contract/link-roles.ts'
import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import type { CreatedShareLink, CreateShareLinkBody, ShareLink, ShareLinkRole } from '../contract/schemas/share-link.ts'
import { actorOf, viaOf } from '../domain/audit.ts'
import { unseen } from '../domain/hidden.ts'
import type { Caller } from '../domain/principal.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import { newSecret, secretPrefixes } from '../domain/secrets.ts'
import { shareLinkExpiry } from '../domain/sharing-rules.ts'
import type { ShareLinkRecord } from '../ports/records.ts'
import { type AlsoNeeded, admitArtifact, guardOf } from './artifact-gate.ts'
import type { CoreDeps } from './deps.ts'
import { idempotencyDraft, planIdempotency, replay, replayAfterRace, secretShownOnce, type Written } from './idempotency.ts'
import { pageOfIds } from './paging.ts'

function presentLink(link: ShareLinkRecord, now: Date): ShareLink {
  const status = link.revokedAt !== null ? 'revoked' : link.expiresAt !== null && link.expiresAt <= now ? 'expired' : 'active'
  return {
    id: link.id,
    artifactId: link.artifactId,
    role: link.role,
    status,
    prefix: link.displayPrefix,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    revokedAt: link.revokedAt?.toISOString() ?? null,
    createdAt: link.createdAt.toISOString(),
    createdBy: link.createdBy,
  }
}

/** Where a link opens the artifact: the web app's `/s/<secret>`. */
export function shareLinkUrl(webUrl: string, secret: string): string {
  return `${webUrl.replace(/\/+$/, '')}/s/${encodeURIComponent(secret)}`
}

/** A link never grants more than its creator may do: what its role lets its holder do, the creator must be allowed. */
const grantedBy: Readonly<Record<ShareLinkRole, AlsoNeeded>> = {
  viewer: {
    actions: linkRoleActions.viewer,
    because: 'A viewer link lets whoever holds it read the artifact, so creating one needs what reading it needs.',
  },
  editor: {
    actions: linkRoleActions.editor,
    because: 'An editor link lets whoever holds it read the artifact and append versions, so creating one needs what both need.',
  },
}

/**
 * Creates a share link: a secret (shown once, stored as its SHA-256) that reads, or with the
 * `editor` role also writes, this one artifact; only for a creator who may do what the link grants.
 */
export async function createShareLink(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  body: CreateShareLinkBody,
  idempotencyKey?: string,
): Promise<Result<Written<CreatedShareLink>>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId } })
  const role = body.role ?? 'viewer'
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.share', grantedBy[role])
  if (!admitted.ok) return admitted
  const { principal, artifact, grant } = admitted.value
  const at = deps.clock.now()
  const expiresAt = shareLinkExpiry(body.expiresAt, at)
  if (!expiresAt.ok) return expiresAt

  const plan = await planIdempotency(deps, principal, idempotencyKey, `createShareLink:${artifact.id}`, body)
  // A replay is the link as it is now, without its secret (which was never stored).
  const now = async (stored: CreatedShareLink): Promise<CreatedShareLink> => {
    const link = await deps.shareLinks.find(stored.id)
    return { ...(link ? presentLink(link, deps.clock.now()) : stored), secret: null, url: null, notice: secretShownOnce }
  }
  const earlier = await replay<CreatedShareLink>(deps, plan, now)
  if (earlier) return earlier

  const secret = await newSecret(secretPrefixes.shareLink)
  const actor = actorOf(principal)
  const link: ShareLinkRecord = {
    id: deps.ids.next('shl'),
    artifactId: artifact.id,
    role,
    displayPrefix: secret.display,
    expiresAt: expiresAt.value,
    revokedAt: null,
    createdAt: at,
    createdBy: actor,
  }
  const created: CreatedShareLink = {
    ...presentLink(link, at),
    secret: secret.secret,
    url: shareLinkUrl(deps.config.webUrl, secret.secret),
  }
  const outcome = await deps.shareLinks.create({
    link,
    secretHash: secret.hash,
    guard: guardOf(principal, grant, at),
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'share_link.created',
      actor,
      via: viaOf(principal, caller),
      workspaceId: artifact.workspaceId,
      artifactId: artifact.id,
      data: { shareLinkId: link.id, role: link.role, expiresAt: link.expiresAt?.toISOString() ?? null, prefix: link.displayPrefix },
    },
    // What a retry gets back: the link without its secret.
    idempotency: idempotencyDraft(plan, 201, { ...created, secret: null, url: null }, at),
  })
  if (outcome.ok) return ok({ value: created, replayed: false })
  if (outcome.reason === 'idempotency_taken') return replayAfterRace<CreatedShareLink>(deps, plan, now)
  if (outcome.reason === 'refused') return fail('forbidden', 'Your access to this artifact changed; nothing was written.')
  return fail('not_found', unseen.artifact)
}

/** An artifact's share links, newest first, without their secrets. */
export async function listShareLinks(
  deps: CoreDeps,
  caller: Caller,
  artifactId: string,
  query: PageQuery,
): Promise<Result<PageOf<ShareLink>>> {
  const ctx = await deps.artifacts.loadForCaller({ credential: caller.credential, target: { id: artifactId } })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.share')
  if (!admitted.ok) return admitted
  const now = deps.clock.now()
  return pageOfIds(
    query,
    'shl',
    (page) => deps.shareLinks.listForArtifact(admitted.value.artifact.id, page),
    (link) => presentLink(link, now),
  )
}

/** Revokes a link at once. Revoking it again changes nothing and is not an error. */
export async function revokeShareLink(deps: CoreDeps, caller: Caller, shareLinkId: string): Promise<Result<ShareLink>> {
  const ctx = await deps.shareLinks.loadForCaller({ credential: caller.credential, shareLinkId })
  const admitted = admitArtifact(deps, caller, ctx, 'artifact.share')
  if (!admitted.ok) return admitted.error.code === 'not_found' ? fail('not_found', unseen.shareLink) : admitted
  const link = ctx.link
  if (link === null) return fail('not_found', unseen.shareLink)
  const { principal, artifact, grant } = admitted.value
  const at = deps.clock.now()
  if (link.revokedAt !== null) return ok(presentLink(link, at))
  const outcome = await deps.shareLinks.revoke({
    linkId: link.id,
    artifactId: artifact.id,
    guard: guardOf(principal, grant, at),
    audit: {
      id: deps.ids.next('evt'),
      at,
      action: 'share_link.revoked',
      actor: actorOf(principal),
      via: viaOf(principal, caller),
      workspaceId: artifact.workspaceId,
      artifactId: artifact.id,
      data: { shareLinkId: link.id, role: link.role, prefix: link.displayPrefix },
    },
  })
  if (outcome.ok) return ok(presentLink(outcome.link, at))
  if (outcome.reason === 'refused') return fail('forbidden', 'Your access to this artifact changed; nothing was written.')
  return fail('not_found', unseen.shareLink)
}
