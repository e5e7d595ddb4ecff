import { isScope, type Scope, scopes } from '@quire/core'
import { DatabaseInUseError } from '@quire/storage'
import yargs from 'yargs'
import { hideBin } from 'yargs/helpers'
import { readEnv } from './env.ts'
import { issueToken } from './operator.ts'

/**
 * Operator commands, run against the configured database (PGlite in QUIRE_DATA_DIR, or
 * DATABASE_URL). `token` is how an operator gets a first credential before sign-in exists:
 * stdout carries only the secret, so `TOKEN=$(pnpm -s admin token --email …)` works.
 */
async function token(argv: { email: string; scopes?: string; name?: string }): Promise<void> {
  const requested = argv.scopes
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknown = requested?.filter((s) => !isScope(s)) ?? []
  if (unknown.length > 0) throw new Error(`Unknown scope ${unknown.join(', ')}. Valid scopes: ${scopes.join(', ')}.`)
  const issued = await issueToken(readEnv(), {
    email: argv.email,
    ...(requested ? { scopes: requested as Scope[] } : {}),
    ...(argv.name ? { name: argv.name } : {}),
  })
  process.stderr.write(
    `${issued.userCreated ? 'Created' : 'Found'} user ${issued.user.email} (username ${issued.user.username}); API key ${issued.keyId}.\n`,
  )
  process.stdout.write(`${issued.secret}\n`)
}

await yargs(hideBin(process.argv))
  .scriptName('pnpm admin')
  .command({
    command: 'token',
    describe: 'Create the user (and personal namespace) if needed and mint an API key; prints only the secret',
    builder: {
      email: { type: 'string', demandOption: true, describe: 'The user the key belongs to' },
      scopes: { type: 'string', describe: `Comma-separated scopes (default: all of ${scopes.join(',')})` },
      name: { type: 'string', describe: 'A name for the key (default "operator token")' },
    },
    handler: (argv) => token(argv as unknown as { email: string; scopes?: string; name?: string }),
  })
  .demandCommand(1, 'Name a command: token')
  .strict()
  .fail((message, error) => {
    process.stderr.write(
      `${error instanceof DatabaseInUseError ? `${error.message} Stop it, or use PostgreSQL (DATABASE_URL).` : (error?.message ?? message)}\n`,
    )
    process.exit(2)
  })
  .parseAsync()
