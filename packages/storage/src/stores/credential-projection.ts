import type { CredentialRecord } from '@quire/core'

/**
 * The one projection of a presented credential and its user, shared by every read that
 * authenticates in the same statement as it reads. `c` is the credential matched by secret hash,
 * `u` its user (see the joins each read writes: `credentials c … users u ON u.id = c.user_id`).
 */
export const credentialFields = [
  'c.id',
  'c.kind',
  'c.scopes',
  'c.expires_at',
  'c.revoked_at',
  'c.audience',
  'c.agent_id',
  'c.name',
  'c.artifact_id',
  'c.role',
  'u.id',
  'u.email',
  'u.email_verified',
  'u.username',
  'u.personal_workspace_id',
] as const
export type CredentialField = (typeof credentialFields)[number]

/** `c.id AS c_id, …`: the projection as plain columns. */
export const credentialColumnList = credentialFields.map((f) => `${f} AS ${f.replace('.', '_')}`).join(', ')

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(v as string))

/** Reads the projection back, however the row carries it (columns or a JSON array). */
export function credentialFrom(get: (field: CredentialField) => unknown): CredentialRecord | null {
  if (get('c.id') == null) return null
  return {
    id: get('c.id') as string,
    kind: get('c.kind') as CredentialRecord['kind'],
    scopes: (get('c.scopes') as string[] | null) ?? [],
    expiresAt: date(get('c.expires_at')),
    revokedAt: date(get('c.revoked_at')),
    audience: (get('c.audience') as string | null) ?? null,
    agentId: (get('c.agent_id') as string | null) ?? null,
    // An agent token's row carries its agent's name (migration 0008); other kinds' names are not the caller's business here.
    agentName: get('c.kind') === 'agent' ? ((get('c.name') as string | null) ?? null) : null,
    artifactId: (get('c.artifact_id') as string | null) ?? null,
    role: (get('c.role') as 'viewer' | 'editor' | null) ?? null,
    accountWorkspaceId: (get('u.personal_workspace_id') as string | null) ?? null,
    user:
      get('u.id') == null
        ? null
        : {
            id: get('u.id') as string,
            email: get('u.email') as string,
            emailVerified: get('u.email_verified') === true,
            username: get('u.username') as string,
          },
  }
}

/** The same, from plain columns named `c_id`, `u_email`, …. */
export function credentialFromColumns(row: Record<string, unknown>): CredentialRecord | null {
  return credentialFrom((field) => row[field.replace('.', '_')])
}
