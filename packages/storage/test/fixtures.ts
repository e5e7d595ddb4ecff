import { createPolicy } from '@quire/authz'
import {
  type AuditAction,
  type AuditEventDraft,
  type CoreDeps,
  createIdGenerator,
  defaultLimits,
  issueOperatorToken,
  sha256Hex,
  systemClock,
} from '@quire/core'
import { testDatabase } from '@quire/testing/test-database'
import { until } from '@quire/testing/waits'
import { sql } from 'kysely'
import { createStores } from '../src/index.ts'
import type { TestDatabase } from '../src/testing.ts'

/** Shared by the store tests: a fresh database with every store over it, and seeded users. */
export const ids = createIdGenerator()

export type Deps = CoreDeps & ReturnType<typeof createStores>

export async function openStores(): Promise<{ handle: TestDatabase; deps: Deps }> {
  const handle = await testDatabase()
  const deps: Deps = {
    ...createStores(handle),
    policy: createPolicy(),
    clock: systemClock,
    ids,
    sha256: sha256Hex,
    config: { webUrl: 'https://q.test', apiUrl: 'https://api.q.test', limits: defaultLimits, version: '0' },
    // The runtime's (the server key, the address rules) is not the store tests' concern.
    webhookSecurity: { refusal: () => null, secret: async (id, rotation) => `whsec_${id}.${rotation}` },
  }
  return { handle, deps }
}

export interface SeededUser {
  readonly user: { readonly id: string; readonly email: string; readonly username: string }
  /** The operator-issued API key's id, and how a caller presents it. */
  readonly credentialId: string
  readonly credential: { readonly secretHash: string }
  readonly workspaceId: string
}

/** A user with a personal workspace and an API key, as the operator creates them. */
export async function seedUser(deps: Deps): Promise<SeededUser> {
  const email = `u${Math.random().toString(36).slice(2, 10)}@example.com`
  const token = await issueOperatorToken(deps, { email })
  const profile = await deps.accounts.profile(token.user.id)
  if (profile === null) throw new Error('seeded user has no profile')
  return {
    user: token.user,
    credentialId: token.keyId,
    credential: { secretHash: await sha256Hex(token.secret) },
    workspaceId: profile.personalWorkspaceId,
  }
}

/** An event draft as a use-case would hand it to a store. */
export function event(action: AuditAction, fields: Partial<AuditEventDraft> = {}): AuditEventDraft {
  return {
    id: ids.next('evt'),
    at: new Date(),
    action,
    actor: { kind: 'operator', id: 'operator', label: 'operator' },
    via: { surface: 'operator', credential: null, credentialId: null },
    workspaceId: null,
    artifactId: null,
    data: {},
    ...fields,
  }
}

/**
 * Waits until a statement on `handle`'s database waits for a lock another transaction holds
 * (PostgreSQL only: pg_stat_activity says so): the signal that it is blocked, where a sleep could
 * only hope it had got that far.
 */
export function untilBlocked(handle: TestDatabase): Promise<true> {
  return until('a statement on this database to wait for a lock', async () => {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(handle.db)
    return (rows[0]?.n ?? 0) > 0
  })
}

/**
 * Gives `artifactId` a history of `versions` versions (all with version 1's content), written
 * directly, and moves its head there: a long history for the reads that must not slow down with
 * it (the API's path to a new version is tested elsewhere).
 */
export async function writeLongHistory(handle: TestDatabase, artifactId: string, versions: number): Promise<void> {
  await sql`INSERT INTO versions (artifact_id, number, content_sha256, size, changelog, created_at, created_by_kind, created_by_id, created_by_label)
    SELECT ${artifactId}, n, v.content_sha256, v.size, '', now(), 'operator', 'o', 'o'
    FROM generate_series(2, ${versions}::int) AS n,
      (SELECT content_sha256, size FROM versions WHERE artifact_id = ${artifactId} AND number = 1) AS v`.execute(handle.db)
  await sql`UPDATE artifacts SET latest_version = ${versions}::int WHERE id = ${artifactId}`.execute(handle.db)
  await sql`ANALYZE versions`.execute(handle.db)
}
