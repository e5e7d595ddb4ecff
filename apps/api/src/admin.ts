import { isScope, type Plan, plans, type Scope, scopes } from '@quire/core'
import { runOperatorCommand } from '@quire/runtime'
import { DatabaseInUseError } from '@quire/storage'
import yargs from 'yargs'
import { hideBin } from 'yargs/helpers'
import { readEnv } from './env.ts'

/**
 * Operator commands, run against the configured database (PGlite in QUIRE_DATA_DIR, or
 * DATABASE_URL). `token` is how an operator gets a first credential before sign-in exists:
 * stdout carries only the secret, so `TOKEN=$(pnpm -s admin token --email …)` works. Every other
 * line goes to stderr; a refusal exits 2.
 */
async function token(argv: { email: string; scopes?: string; name?: string }): Promise<void> {
  const requested = argv.scopes
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknown = requested?.filter((s) => !isScope(s)) ?? []
  if (unknown.length > 0) throw new Error(`Unknown scope ${unknown.join(', ')}. Valid scopes: ${scopes.join(', ')}.`)
  const issued = await runOperatorCommand(readEnv(), 'token', {
    email: argv.email,
    ...(requested ? { scopes: requested as Scope[] } : {}),
    ...(argv.name ? { name: argv.name } : {}),
  })
  process.stderr.write(
    `${issued.userCreated ? 'Created' : 'Found'} user ${issued.user.email} (username ${issued.user.username}); API key ${issued.keyId}.\n`,
  )
  process.stdout.write(`${issued.secret}\n`)
}

function isPlan(value: string): value is Plan {
  return (plans as readonly string[]).includes(value)
}

async function plan(argv: { workspace: string; plan: string }): Promise<void> {
  if (!isPlan(argv.plan)) throw new Error(`Unknown plan ${argv.plan}. Plans: ${plans.join(', ')}.`)
  const { workspace } = await runOperatorCommand(readEnv(), 'plan', { slug: argv.workspace, plan: argv.plan })
  if (workspace === null) throw new Error(`No workspace ${argv.workspace}: give the slug of a workspace or a username.`)
  process.stderr.write(`Workspace ${workspace.slug} (${workspace.id}) is on the ${argv.plan} plan.\n`)
}

async function pruneAudit(): Promise<void> {
  const { pruned, skipped } = await runOperatorCommand(readEnv(), 'prune-audit', {})
  process.stderr.write(
    skipped
      ? 'Another run is pruning the audit trail right now (the server, or another process); nothing done.\n'
      : `Pruned ${pruned} audit event${pruned === 1 ? '' : 's'}.\n`,
  )
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
  .command({
    command: 'plan',
    describe: "Set a workspace's plan, which sets how long its audit trail is kept",
    builder: {
      workspace: { type: 'string', demandOption: true, describe: 'The workspace slug (a username for a personal one)' },
      plan: { type: 'string', demandOption: true, describe: `One of ${plans.join(', ')} (audit kept 7, 90, 365 days)` },
    },
    handler: (argv) => plan(argv as unknown as { workspace: string; plan: string }),
  })
  .command({
    command: 'prune-audit',
    describe: "Delete the audit events older than their workspace plan's retention (the API also prunes on a schedule)",
    handler: () => pruneAudit(),
  })
  .demandCommand(1, 'Name a command: token, plan or prune-audit')
  .strict()
  .fail((message, error) => {
    process.stderr.write(
      `${error instanceof DatabaseInUseError ? `${error.message} Stop it, or use PostgreSQL (DATABASE_URL).` : (error?.message ?? message)}\n`,
    )
    process.exit(2)
  })
  .parseAsync()
