/**
 * `@quire/storage`: Quire's storage adapter. One Kysely schema and one set of migrations on
 * PostgreSQL (production) and PGlite (the embedded default); stores implementing core's ports,
 * each change committed with its audit event in one transaction.
 */
import type { AccountStore, ApiKeyStore, ArtifactStore, CredentialStore, HealthProbe, IdempotencyStore, ProjectStore } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { Database } from './schema.ts'
import { accountStore, apiKeyStore } from './stores/accounts.ts'
import { artifactStore } from './stores/artifacts.ts'
import { credentialStore } from './stores/credentials.ts'
import { idempotencyStore } from './stores/idempotency.ts'
import { projectStore } from './stores/projects.ts'

export { type DatabaseConfig, type DatabaseHandle, openDatabase } from './database.ts'
export { migrateToLatest } from './migrations/index.ts'
export type { Database } from './schema.ts'

/** Every store core's use-cases need, over one database. */
export interface Stores {
  readonly credentials: CredentialStore
  readonly artifacts: ArtifactStore
  readonly projects: ProjectStore
  readonly idempotency: IdempotencyStore
  readonly accounts: AccountStore
  readonly apiKeys: ApiKeyStore
  readonly health: HealthProbe
}

export function createStores(db: Kysely<Database>): Stores {
  return {
    credentials: credentialStore(db),
    artifacts: artifactStore(db),
    projects: projectStore(db),
    idempotency: idempotencyStore(db),
    accounts: accountStore(db),
    apiKeys: apiKeyStore(db),
    health: {
      async ping() {
        await sql`SELECT 1`.execute(db)
      },
    },
  }
}
