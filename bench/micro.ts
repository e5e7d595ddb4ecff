import { prepareTestRun, freshTestDatabase, finishTestRun } from '@quire/storage/testing'
import { buildApp, createRuntime, readEnv } from '@quire/api'
import { sha256Hex } from '@quire/core'
import { seed } from './api/seed.ts'
const run = await prepareTestRun({ pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres', snapshotPath: '/dev/null', engines: ['postgres'] })
const db = await freshTestDatabase(run, 'postgres', { poolSize: 10 })
const f = await seed(db, 2)
const runtime = await createRuntime(readEnv({ DATABASE_URL: db.url!, LOG_LEVEL: 'silent' }), { database: db })
const app = await buildApp(runtime)
const N = 3000
async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 300; i++) await fn()
  const t = performance.now()
  // 10 concurrent loops
  await Promise.all(Array.from({ length: 10 }, async () => { for (let i = 0; i < N / 10; i++) await fn() }))
  console.log(name.padEnd(30), ((performance.now() - t) / N * 1000).toFixed(1), 'µs/req wall (10 concurrent)')
}
const hash = await sha256Hex(f.token)
await time('store.loadForCaller public', () => runtime.deps.artifacts.loadForCaller({ credential: null, target: { id: f.publicId }, version: 1, withContent: true }))
await time('store.loadForCaller owner', () => runtime.deps.artifacts.loadForCaller({ credential: { secretHash: hash }, target: { id: f.privateId }, version: 1, withContent: true }))
await time('raw pk select', () => db.db.selectFrom('artifacts').select(['id', 'slug']).where('id', '=', f.publicId).execute())
await time('inject public pinned', () => app.inject({ url: `/api/artifacts/${f.publicId}/content?version=1` }))
await time('inject owner pinned', () => app.inject({ url: `/api/artifacts/${f.privateId}/content?version=1`, headers: { authorization: `Bearer ${f.token}` } }))
await time('inject health', () => app.inject({ url: `/health` }))
await app.close(); await db.close(); await finishTestRun(run)
