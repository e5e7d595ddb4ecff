import { type Kysely, sql } from 'kysely'
import type { Database } from '../schema.ts'

/** Keys the server makes once and keeps (`server_keys`), by name: every process of a deployment reads the same one. */
export interface ServerKeyStore {
  /** The key called `name`; the first caller's `make()` when there is none yet (a concurrent first caller's, if it won). */
  keyFor(name: string, make: () => string): Promise<string>
}

export function serverKeyStore(db: Kysely<Database>): ServerKeyStore {
  return {
    async keyFor(name, make) {
      await sql`INSERT INTO server_keys (name, secret, created_at) VALUES (${name}::text, ${make()}::text, now())
        ON CONFLICT (name) DO NOTHING`.execute(db)
      const { rows } = await sql<{ secret: string }>`SELECT secret FROM server_keys WHERE name = ${name}::text`.execute(db)
      const secret = rows[0]?.secret
      if (secret === undefined) throw new Error(`The server key ${name} could not be kept.`)
      return secret
    },
  }
}
