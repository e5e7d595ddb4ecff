import type { WriteGuard } from '@quire/core'
import { type RawBuilder, sql } from 'kysely'

/**
 * The credential an authorization rested on is still live at `at`: not revoked, not expired.
 * Null (the operator, or no credential) holds always. `extra` narrows the credential further.
 */
export function credentialIsLive(credentialId: string | null, at: Date, extra: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  if (credentialId === null) return sql`true`
  return sql`EXISTS (SELECT 1 FROM credentials c WHERE c.id = ${credentialId}::text AND c.revoked_at IS NULL
    AND (c.expires_at IS NULL OR c.expires_at > ${at}::timestamptz) ${extra})`
}

/**
 * The authorization facts a write rests on, as a condition on the artifact row being updated:
 * the credential is still live, and the grant (membership role, public edit, editor link) holds.
 * It refers to the row as `artifacts` (no alias), in an UPDATE of or a SELECT from that table.
 */
export function guardCondition(guard: WriteGuard) {
  const credential = credentialIsLive(
    guard.credentialId,
    guard.at,
    guard.grant.kind === 'share_link' ? sql`AND c.artifact_id = artifacts.id AND c.role = 'editor'` : sql``,
  )
  switch (guard.grant.kind) {
    case 'role':
      return sql`${credential} AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = artifacts.workspace_id
        AND m.user_id = ${guard.userId}::text AND m.role = ${guard.grant.role}::text)`
    case 'public_edit':
      return sql`${credential} AND artifacts.public_edit`
    default:
      return credential
  }
}

/**
 * The same for a write on a workspace (`workspaceId`, an SQL expression): the credential is live
 * and the caller still holds the granted role there. Grants that only make sense on an artifact
 * (public edit, share links, viewer emails) never admit a workspace write.
 */
export function workspaceGuardCondition(guard: WriteGuard, workspaceId: RawBuilder<unknown>) {
  const credential = credentialIsLive(guard.credentialId, guard.at)
  switch (guard.grant.kind) {
    case 'role':
      return sql`${credential} AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = ${workspaceId}
        AND m.user_id = ${guard.userId}::text AND m.role = ${guard.grant.role}::text)`
    case 'open':
      return credential
    default:
      return sql`false`
  }
}
