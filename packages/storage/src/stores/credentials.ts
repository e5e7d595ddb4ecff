import type { CredentialRecord, CredentialStore, PresentedCredential } from '@quire/core'
import { type Kysely, sql } from 'kysely'
import type { Row } from '../rows.ts'
import type { Database } from '../schema.ts'
import { credentialFromColumns } from './credential-projection.ts'
import { credentialColumns, credentialJoins } from './fragments.ts'

export function credentialStore(db: Kysely<Database>): CredentialStore {
  return {
    async find(credential: PresentedCredential): Promise<CredentialRecord | null> {
      const { rows } = await sql<Row>`SELECT ${credentialColumns} FROM (SELECT 1) AS one ${credentialJoins(credential.secretHash)}`.execute(
        db,
      )
      return rows[0] ? credentialFromColumns(rows[0]) : null
    },
  }
}
