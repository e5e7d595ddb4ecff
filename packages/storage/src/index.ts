/**
 * `@quire/storage`: Quire's storage adapter. One Kysely schema and one set of migrations on
 * PostgreSQL (production) and PGlite (the embedded default); stores implementing core's ports,
 * each change committed with its audit event in one transaction.
 */
import type { AuditPruner, CoreStores } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { DatabaseHandle, RawQuery } from './database.ts'
import type { Database } from './schema.ts'
import { accountStore } from './stores/accounts.ts'
import { admissionCache } from './stores/admissions.ts'
import { agentStore } from './stores/agents.ts'
import { apiKeyStore } from './stores/api-keys.ts'
import { artifactStore } from './stores/artifacts.ts'
import { auditPruner } from './stores/audit-pruning.ts'
import { auditStore } from './stores/audit-reads.ts'
import { type ChangeFeedOptions, changeStore } from './stores/change-events.ts'
import { credentialStore } from './stores/credentials.ts'
import { idempotencyStore } from './stores/idempotency.ts'
import { ImmutableCache } from './stores/immutable-cache.ts'
import { invitationStore } from './stores/invitations.ts'
import { oauthStore } from './stores/oauth.ts'
import { projectStore } from './stores/projects.ts'
import { searchStore } from './stores/search.ts'
import { type ServerKeyStore, serverKeyStore } from './stores/server-keys.ts'
import { shareLinkStore } from './stores/share-links.ts'
import { signInStore } from './stores/sign-in.ts'
import { webhookStore } from './stores/webhooks.ts'
import { workspaceStore } from './stores/workspaces.ts'

export { DatabaseInUseError } from './data-dir-lock.ts'
export { type DatabaseConfig, type DatabaseHandle, openDatabase, queryThrough, type RawQuery } from './database.ts'
export { migrateToLatest } from './migrations/index.ts'
export { postgresRateLimitStore, type RateLimitCount, type RateLimitStore, type RateLimitStoreClass } from './rate-limit-store.ts'
export type { Database } from './schema.ts'
export { indexUnindexedVersions } from './search-index.ts'
export { CHANGES_CHANNEL, type ChangeFeedOptions, sequenceChanges } from './stores/change-events.ts'
export type { ServerKeyStore } from './stores/server-keys.ts'

/** Every store core's use-cases need (core's `CoreStores`), and the operator's audit pruner, over one database. */
export interface Stores extends CoreStores {
  /** Deletes audit events past retention: the operator's and the scheduler's, never a use-case's. */
  readonly auditPruner: AuditPruner
  /** The change stream, with this process's feed to stop (before the database closes). */
  readonly changes: CoreStores['changes'] & { close(): Promise<void> }
  /** Keys the server makes once and keeps (the content origin's signing key when none is set): the runtime's, no use-case's. */
  readonly serverKeys: ServerKeyStore
}

/** Memory for what never changes (versions, content by SHA-256), per process. */
export interface StoreOptions {
  /** Bytes of content to keep in memory (default 64 MiB). */
  readonly contentCacheBytes?: number
  /** Version records to keep in memory (default 100,000). */
  readonly versionCacheEntries?: number
  /** Recent write admissions to keep (default 10,000; each lives a minute at most). */
  readonly admissionEntries?: number
  /** Credentials whose last use this process remembers writing, to write it once a minute (default 10,000). */
  readonly touchEntries?: number
  /** The change feed's poll and what it tells of a lost `LISTEN` connection. */
  readonly changes?: ChangeFeedOptions
}

/**
 * Every store over one database: the query builder, and the raw path for the hottest reads. The
 * engine (default PostgreSQL) tells the audit pruner how to exclude other pruners.
 */
export function createStores(
  database: {
    readonly db: Kysely<Database>
    readonly query: RawQuery
    readonly kind?: DatabaseHandle['kind']
    readonly listen?: DatabaseHandle['listen']
  },
  options: StoreOptions = {},
): Stores {
  const { db } = database
  const cache = new ImmutableCache({
    contentBytes: options.contentCacheBytes ?? 64 * 1024 * 1024,
    versions: options.versionCacheEntries ?? 100_000,
  })
  return {
    credentials: credentialStore(db, database.query, { touchEntries: options.touchEntries ?? 10_000 }),
    artifacts: artifactStore(database, cache),
    projects: projectStore(db),
    shareLinks: shareLinkStore(db),
    audit: auditStore(db),
    idempotency: idempotencyStore(db),
    admissions: admissionCache({ entries: options.admissionEntries ?? 10_000, ttlMs: 60_000 }),
    accounts: accountStore(db),
    apiKeys: apiKeyStore(db),
    workspaces: workspaceStore(db),
    invitations: invitationStore(db),
    signIn: signInStore(db),
    oauth: oauthStore(db),
    agents: agentStore(db),
    search: searchStore(db),
    changes: changeStore(database, options.changes),
    webhooks: webhookStore(db),
    auditPruner: auditPruner(db, database.kind ?? 'postgres'),
    serverKeys: serverKeyStore(db),
    health: {
      async ping() {
        await sql`SELECT 1`.execute(db)
      },
    },
  }
}
