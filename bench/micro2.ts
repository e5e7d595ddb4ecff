import { Kysely, PostgresDialect, sql, CompiledQuery } from 'kysely'
import pg from 'pg'
import { prepareTestRun, freshTestDatabase, finishTestRun } from '@quire/storage/testing'
import { seed } from './api/seed.ts'
const run = await prepareTestRun({ pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres', snapshotPath: '/dev/null', engines: ['postgres'] })
const db = await freshTestDatabase(run, 'postgres', { poolSize: 10 })
const f = await seed(db, 2)
const logged: CompiledQuery[] = []
const { createStores } = await import('@quire/storage')
const k2 = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: db.url!, max: 1 }) }), log: (e) => { if (e.level === 'query') logged.push(e.query) } })
await createStores(k2).artifacts.loadForCaller({ credential: null, target: { id: f.publicId }, version: 1, withContent: true })
const q = logged[0]!
const { loadArtifactForCaller } = await import('../packages/storage/src/stores/artifact-reads.ts')
// 1. compile-only cost: use a dummy executor via .compile of the sql template? emulate by building through a db with no-op driver is complex; time buildAndCompile via kysely's `sql` + compile
const N = 20000
let t = performance.now()
for (let i = 0; i < N; i++) {
  const frag = sql`SELECT ${sql.raw('1')} FROM x WHERE a = ${'b'} AND c = ${i}`
  frag.compile(db.db)
}
console.log('tiny sql compile', ((performance.now() - t) / N * 1000).toFixed(2), 'µs')
// Time pg raw (prepared) vs our store on a single pooled client sequentially
const pool = new pg.Pool({ connectionString: db.url!, max: 10 })
async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 300; i++) await fn()
  const t = performance.now()
  await Promise.all(Array.from({ length: 10 }, async () => { for (let i = 0; i < 300; i++) await fn() }))
  console.log(name.padEnd(34), ((performance.now() - t) / 3000 * 1000).toFixed(1), 'µs/op')
}
await time('pg prepared big query', () => pool.query({ name: 'big', text: q.sql, values: q.parameters as unknown[] }))
await time('pg prepared big query rowMode array', () => pool.query({ name: 'big2', text: q.sql, values: q.parameters as unknown[], rowMode: 'array' }))
await time('kysely executeQuery compiled', () => db.db.executeQuery(q))
await time('store loadForCaller', () => loadArtifactForCaller(db.db, { credential: null, target: { id: f.publicId }, version: 1, withContent: true }))
await time('pg prepared pk', () => pool.query({ name: 'pk', text: 'SELECT id, slug FROM artifacts WHERE id = $1', values: [f.publicId] }))
await pool.end(); await k2.destroy()
process.exit(0)
