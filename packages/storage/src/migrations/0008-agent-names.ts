import { type Kysely, sql } from 'kysely'

/**
 * Agent names (issue 30): what people see an agent as, instead of its `agt_…` id.
 *
 * - `agent_registrations.name`: the `name` the agent registered with, or one generated from its
 *   id; agents registered before this migration get the generated one (`generatedAgentName` in
 *   @quire/core writes the same: `Agent ` and the id's last four characters).
 * - `agent_registrations.description`: what the agent said it does, if anything.
 * - An agent token's `credentials.name` is its agent's name, so the read that authenticates a
 *   token labels its events without a join; existing tokens get it here.
 */
const statements = [
  `ALTER TABLE agent_registrations ADD COLUMN name text COLLATE "C", ADD COLUMN description text COLLATE "C"`,
  `UPDATE agent_registrations SET name = 'Agent ' || right(id, 4)`,
  `ALTER TABLE agent_registrations ALTER COLUMN name SET NOT NULL,
    ADD CONSTRAINT agent_registrations_name_length CHECK (char_length(name) BETWEEN 1 AND 80),
    ADD CONSTRAINT agent_registrations_description_length CHECK (char_length(description) BETWEEN 1 AND 500)`,
  `UPDATE credentials c SET name = r.name FROM agent_registrations r WHERE c.kind = 'agent' AND c.agent_id = r.id`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    `UPDATE credentials SET name = '' WHERE kind = 'agent'`,
    'ALTER TABLE agent_registrations DROP COLUMN name, DROP COLUMN description',
  ])
    await sql.raw(statement).execute(db)
}
