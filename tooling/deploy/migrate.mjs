// Brings the database at DATABASE_URL to the latest schema, then exits: `node migrate.mjs` in the
// API's deployed folder (the image copies it to /app). compose.yaml runs it once, on a direct
// connection to PostgreSQL, before any app process starts, so that a deploy's migrations happen in
// one visible step (and fail it) rather than inside whichever app process starts first.
// Plain JavaScript, no build: it imports @quire/storage from the folder's node_modules.
import { migrateToLatest, openDatabase } from '@quire/storage'

const url = process.env.DATABASE_URL
if (!url) {
  process.stderr.write('migrate: set DATABASE_URL (a direct PostgreSQL URL, not PgBouncer)\n')
  process.exit(2)
}
let handle
try {
  handle = await openDatabase({ kind: 'postgres', url, poolSize: 1 })
  const applied = await migrateToLatest(handle.db)
  process.stderr.write(applied.length > 0 ? `migrate: applied ${applied.join(', ')}\n` : 'migrate: the schema is up to date\n')
} catch (error) {
  process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
} finally {
  await handle?.close()
}
