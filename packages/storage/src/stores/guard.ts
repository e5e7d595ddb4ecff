import type { WriteGuard } from '@quire/core'
import { sql } from 'kysely'

/**
 * The authorization facts a write rests on, as a condition on the artifact row being updated:
 * the credential is still live, and the grant (membership role, public edit, editor link) holds.
 * It refers to the row as `artifacts` (no alias), in an UPDATE of or a SELECT from that table.
 */
export function guardCondition(guard: WriteGuard) {
  const credential =
    guard.credentialId === null
      ? sql`true`
      : sql`EXISTS (SELECT 1 FROM credentials c WHERE c.id = ${guard.credentialId}::text AND c.revoked_at IS NULL
          AND (c.expires_at IS NULL OR c.expires_at > ${guard.at}::timestamptz)
          ${guard.grant.kind === 'share_link' ? sql`AND c.artifact_id = artifacts.id AND c.role = 'editor'` : sql``})`
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
