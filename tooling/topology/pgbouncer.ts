import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The PgBouncer configuration compose.yaml runs (transaction pooling, its reset query and all). */
export const shippedPgbouncerIni = resolve(import.meta.dirname, '../deploy/pgbouncer/pgbouncer.ini')

/**
 * The shipped PgBouncer configuration (tooling/deploy/pgbouncer/pgbouncer.ini), run on this
 * machine: every database passed through to the PostgreSQL of `databaseUrl`, listening on
 * 127.0.0.1:`port` only (no Unix socket, so no clash with a system PgBouncer), its auth file in
 * `dir` with the role and password of `databaseUrl` (a random password when it has none: the local
 * PostgreSQL trusts it), logging to stderr. Everything else is the file as shipped, so the
 * topology and tooling/test/deploy.test.ts try what compose.yaml deploys. Writes both files
 * (readable by the user PgBouncer may drop to); returns the configuration's path and the URL the
 * apps connect to through it.
 */
export function writePgbouncerConfig(options: { dir: string; port: number; databaseUrl: string }): {
  configFile: string
  url: string
} {
  const database = new URL(options.databaseUrl)
  const userlistFile = join(options.dir, 'userlist.txt')
  const configFile = join(options.dir, 'pgbouncer.ini')
  let config = readFileSync(shippedPgbouncerIni, 'utf8')
  for (const [from, to] of [
    ['* = host=postgres port=5432', `* = host=${database.hostname} port=${database.port || 5432}`],
    ['listen_addr = 0.0.0.0', 'listen_addr = 127.0.0.1'],
    ['listen_port = 6432', `listen_port = ${options.port}`],
    ['auth_file = /tmp/pgbouncer/userlist.txt', `auth_file = ${userlistFile}`],
  ] as const) {
    if (!config.includes(from)) throw new Error(`${shippedPgbouncerIni} no longer has \`${from}\`: update writePgbouncerConfig.`)
    config = config.replace(from, to)
  }
  const user = decodeURIComponent(database.username) || 'postgres'
  const password = decodeURIComponent(database.password) || crypto.randomUUID()
  writeFileSync(userlistFile, `"${user}" "${password}"\n`, { mode: 0o644 })
  writeFileSync(configFile, config, { mode: 0o644 })
  const url = new URL(options.databaseUrl)
  url.port = String(options.port)
  if (!url.username) url.username = user
  if (!url.password) url.password = password
  return { configFile, url: url.toString() }
}
