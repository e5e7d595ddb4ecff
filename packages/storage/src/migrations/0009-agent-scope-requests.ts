import { type Kysely, sql } from 'kysely'

/**
 * More scopes on request (issue 30, step-up): a claimed agent asks the person who claimed it for
 * scopes beyond its grant.
 *
 * - `agent_registrations.requested_scopes`: the pending request (the scopes to add), null when
 *   none is. Its user code is the registration's `user_code_hash` / `user_code_expires_at`, unused
 *   after the claim, so the partial unique index keeps claim and step-up codes apart; approving
 *   the request adds it to `post_claim_scopes` and ends both, and a new request replaces both.
 * - A request exists only for a claimed agent, and only with its code (which may have expired).
 */
const statements = [
  `ALTER TABLE agent_registrations ADD COLUMN requested_scopes text[] COLLATE "C",
    ADD CONSTRAINT agent_registrations_requested_scopes
      CHECK (requested_scopes IS NULL OR (claimed_at IS NOT NULL AND user_code_hash IS NOT NULL))`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('ALTER TABLE agent_registrations DROP COLUMN requested_scopes').execute(db)
}
