import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
import { prepareTestRun, freshTestDatabase, finishTestRun } from '@quire/storage/testing'
import { seed } from './api/seed.ts'
const run = await prepareTestRun({ pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres', snapshotPath: '/dev/null', engines: ['postgres'] })
const db = await freshTestDatabase(run, 'postgres', { poolSize: 2 })
const f = await seed(db, 2)
const child = spawn(process.execPath, ['--conditions=source', '--cpu-prof', '--cpu-prof-dir=/tmp/prof', 'apps/api/src/main.ts'], { cwd: '..', env: { ...process.env, DATABASE_URL: db.url!, API_PORT: '3100', LOG_LEVEL: 'warn' }, stdio: 'inherit' })
await new Promise((r) => setTimeout(r, 3000))
const mode = process.argv[2] ?? 'public'
const url = mode === 'public' ? `http://127.0.0.1:3100/api/artifacts/${f.publicId}/content?version=1` : `http://127.0.0.1:3100/api/artifacts/${f.privateId}/content?version=1`
const headers = mode === 'public' ? {} : { authorization: `Bearer ${f.token}` }
const r = await autocannon({ url, connections: 50, duration: 8, headers })
console.log('rps', r.requests.average)
child.kill('SIGTERM')
await new Promise((r) => child.on('exit', r))
await db.close(); await finishTestRun(run)
