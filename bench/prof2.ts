import { spawn, execSync } from 'node:child_process'
import autocannon from 'autocannon'
import pg from 'pg'
import { prepareTestRun, freshTestDatabase, finishTestRun } from '@quire/storage/testing'
import { seed } from './api/seed.ts'
const run = await prepareTestRun({ pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres', snapshotPath: '/dev/null', engines: ['postgres'] })
const db = await freshTestDatabase(run, 'postgres', { poolSize: 2 })
const f = await seed(db, 2)
const c = new pg.Client({ connectionString: db.url! }); await c.connect()
await c.query('CREATE TABLE bench_rows (id int PRIMARY KEY, body text NOT NULL)')
await c.query('INSERT INTO bench_rows SELECT n, $1 FROM generate_series(1, 10000) n', [f.content]); await c.end()
const quire = spawn(process.execPath, ['--conditions=source', 'apps/api/src/main.ts'], { cwd: '..', env: { ...process.env, DATABASE_URL: db.url!, API_PORT: '3100', LOG_LEVEL: 'warn' }, stdio: 'inherit' })
const bare = spawn(process.execPath, ['--conditions=source', 'bench/api/baseline-server.ts'], { cwd: '..', env: { ...process.env, BASELINE_DATABASE_URL: db.url!, BASELINE_PORT: '3101' }, stdio: 'inherit' })
await new Promise((r) => setTimeout(r, 3000))
function cpu() { return execSync(`ps -eo pid,comm,time --no-headers`).toString() }
function ticks(): Map<string, number> {
  const m = new Map<string, number>()
  for (const line of execSync('ps -eo pid,comm,cputimes --no-headers').toString().trim().split('\n')) {
    const [pid, comm, t] = line.trim().split(/\s+/)
    const key = pid === String(quire.pid) ? 'quire' : pid === String(bare.pid) ? 'bare' : pid === String(process.pid) ? 'autocannon' : comm === 'postgres' ? 'postgres' : 'other'
    m.set(key, (m.get(key) ?? 0) + Number(t))
  }
  return m
}
for (const [name, url, headers] of [['bare', 'http://127.0.0.1:3101/row/42', {}], ['quire-public', `http://127.0.0.1:3100/api/artifacts/${f.publicId}/content?version=1`, {}], ['quire-owner', `http://127.0.0.1:3100/api/artifacts/${f.privateId}/content?version=1`, { authorization: `Bearer ${f.token}` }]] as const) {
  await autocannon({ url, connections: 50, duration: 2, headers })
  const a = ticks()
  const r = await autocannon({ url, connections: 50, duration: 6, headers })
  const b = ticks()
  const d = [...b].map(([k, v]) => `${k}=${(v - (a.get(k) ?? 0))}s`).join(' ')
  console.log(name, 'rps', Math.round(r.requests.average), 'total', r.requests.total, d)
}
quire.kill(); bare.kill()
await db.close(); await finishTestRun(run)
