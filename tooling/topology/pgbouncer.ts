import { join } from 'node:path'

/**
 * PgBouncer for the topology: transaction pooling (a server connection per transaction, so many
 * app connections share a few PostgreSQL backends; the apps must not prepare statements:
 * DATABASE_PREPARED_STATEMENTS=false), every database name passed through to PostgreSQL (each
 * test has its own), trust on 127.0.0.1 only, no Unix socket (no clash with a system PgBouncer),
 * logging to stderr (kept for failure messages).
 */
export function pgbouncerConfig(options: { dir: string; port: number; postgresHost: string; postgresPort: number; poolSize?: number }) {
  const userlistFile = join(options.dir, 'userlist.txt')
  const configFile = join(options.dir, 'pgbouncer.ini')
  const config = `[databases]
* = host=${options.postgresHost} port=${options.postgresPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${options.port}
unix_socket_dir =
auth_type = trust
auth_file = ${userlistFile}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = ${options.poolSize ?? 20}
ignore_startup_parameters = extra_float_digits,options
server_check_delay = 1
log_connections = 0
log_disconnections = 0
`
  return { configFile, userlistFile, config, userlist: '"postgres" ""\n' }
}
