import { type Kysely, sql } from 'kysely'

/**
 * Sign-in through an OpenID Connect provider, and the OAuth 2.1 authorization server.
 *
 * - `user_identities`: the provider's (issuer, subject) names one Quire user; a user may have
 *   several (several providers, or a subject linked by a verified email).
 * - An email is unique among the users whose email is verified, not among all users: an
 *   unverified address proves nothing, so it may neither take an address from its owner nor
 *   block the owner from signing in (someone who signed up first with another person's address,
 *   unverified, would otherwise hold it, and the owner's verified sign-in would either be refused
 *   or be linked to the squatter's account).
 * - Sessions and OAuth access tokens are credentials. An access token records the client it was
 *   issued to and the family (the one authorization) it descends from.
 * - `oauth_token_families`: one row per authorization, created when its code is exchanged. Every
 *   change to a family's tokens (issuing, rotating, revoking) locks this row first, so a
 *   revocation waits for a rotation in flight and then sees the tokens it made, and tokens issued
 *   into a family that was revoked a moment before are born revoked.
 * - `oauth_codes` and `oauth_refresh_tokens` are stored by the SHA-256 of their secrets.
 */
const statements = [
  `CREATE TABLE user_identities (
    issuer text COLLATE "C" NOT NULL,
    subject text COLLATE "C" NOT NULL,
    user_id text COLLATE "C" NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (issuer, subject)
  )`,
  `CREATE INDEX user_identities_by_user ON user_identities (user_id)`,
  `ALTER TABLE users DROP CONSTRAINT users_email_key`,
  `CREATE UNIQUE INDEX users_verified_email ON users (email) WHERE email_verified`,
  `CREATE TABLE oauth_clients (
    id text COLLATE "C" PRIMARY KEY,
    name text COLLATE "C" NOT NULL,
    redirect_uris text[] COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE oauth_token_families (
    id text COLLATE "C" PRIMARY KEY,
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients (id),
    user_id text COLLATE "C" NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
  )`,
  `CREATE TABLE oauth_codes (
    code_hash text COLLATE "C" PRIMARY KEY,
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients (id),
    user_id text COLLATE "C" NOT NULL REFERENCES users (id),
    redirect_uri text COLLATE "C" NOT NULL,
    code_challenge text COLLATE "C" NOT NULL,
    scopes text[] COLLATE "C" NOT NULL,
    resource text COLLATE "C" NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    used_at timestamptz,
    family_id text COLLATE "C" REFERENCES oauth_token_families (id),
    CHECK ((used_at IS NULL) = (family_id IS NULL))
  )`,
  `CREATE TABLE oauth_refresh_tokens (
    id text COLLATE "C" PRIMARY KEY,
    secret_hash text COLLATE "C" NOT NULL UNIQUE,
    family_id text COLLATE "C" NOT NULL REFERENCES oauth_token_families (id),
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients (id),
    user_id text COLLATE "C" NOT NULL REFERENCES users (id),
    scopes text[] COLLATE "C" NOT NULL,
    resource text COLLATE "C" NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    rotated_at timestamptz,
    revoked_at timestamptz
  )`,
  `CREATE INDEX oauth_refresh_tokens_by_family ON oauth_refresh_tokens (family_id)`,
  `ALTER TABLE credentials ADD COLUMN client_id text COLLATE "C" REFERENCES oauth_clients (id)`,
  `ALTER TABLE credentials ADD COLUMN family_id text COLLATE "C" REFERENCES oauth_token_families (id)`,
  `CREATE INDEX credentials_by_family ON credentials (family_id) WHERE family_id IS NOT NULL`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP INDEX credentials_by_family',
    'ALTER TABLE credentials DROP COLUMN family_id, DROP COLUMN client_id',
    'DROP TABLE oauth_refresh_tokens, oauth_codes, oauth_token_families, oauth_clients',
    'DROP INDEX users_verified_email',
    'ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE (email)',
    'DROP TABLE user_identities',
  ])
    await sql.raw(statement).execute(db)
}
