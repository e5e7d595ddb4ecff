/**
 * bench/cli: how long the built CLI (`packages/cli/dist/bin.js`, as npm installs it) takes, beside
 * `node -e 0` (the floor: starting Node itself), every case alternating in the same run so drift
 * hits them alike.
 *
 * Offline: `quire --version` (target ≤ 1.5× the floor), `--help` (the parser loaded) and `schema`
 * (a command run). Networked: `quire artifact list` against a Quire started here on the embedded
 * database (a temporary data directory, 127.0.0.1 only, stopped however the run ends), beside the
 * server's own time (a GET of the same URL from this process, on a new connection, as a fresh
 * process opens one) and plain `node -e` scripts doing the same authenticated GET (with `fetch`,
 * and with node:http, which does not load fetch's undici). Target:
 * `quire artifact list` ≤ 2 × (node -e 0) + the server's time.
 *
 * `--compare` times `quire artifact list` of another build too, alternating in the same run (a
 * change measured against what it changes, on a machine whose load drifts).
 *
 *   pnpm bench cli [--runs 20] [--bin path/to/bin.js] [--compare path/to/other/bin.js]
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import * as harness from '../harness.ts'

const root = resolve(import.meta.dirname, '../..')
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    // Another build of the CLI, to compare builds; it must sit one level below a copy of packages/cli/package.json.
    bin: { type: 'string', default: resolve(root, 'packages/cli/dist/bin.js') },
    // The same constraint; its `artifact list` is timed beside this one's.
    compare: { type: 'string' },
  },
})
const runs = harness.bounded(values, 'runs', 1, 1000)
const bin = resolve(values.bin)
const other = values.compare === undefined ? undefined : resolve(values.compare)
for (const path of [bin, ...(other ? [other] : [])])
  if (!existsSync(path)) {
    process.stderr.write(`No built CLI at ${path}: run \`pnpm -F @quire/cli... build\` (or \`pnpm check\`) first.\n`)
    process.exit(1)
  }

/** Each child's whole environment: nothing of ours (a developer's AGENT_SERVICE_TOKEN, NODE_OPTIONS) leaks in; HOME is empty, so no keyring or stored credential is touched. */
const home = mkdtempSync(join(tmpdir(), 'quire-bench-cli-home-'))
const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-cli-data-'))
const childEnv = { PATH: process.env.PATH ?? '', HOME: home, ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) }

/** No child may hang the run: one that takes this long is killed, and the run fails. */
const timeout = 60_000

/** Runs `node args` to its end; its wall time in ms. A failing case is a broken bench, not a figure. */
function time(args: readonly string[], env: Record<string, string> = {}): number {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...childEnv, ...env }, timeout })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return ms
}

/** One GET from this (warm) process on a new connection, to the end of the body: the server's time, loopback included. */
function serverTime(url: string, token: string): Promise<number> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint()
    get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) fail(new Error(`GET ${url} answered ${res.statusCode}`))
      res.resume()
      res.on('end', () => done(Number(process.hrtime.bigint() - started) / 1e6))
    }).on('error', fail)
  })
}

const { median } = harness

/** The same request `quire artifact list` makes, written plainly: Node, fetch, print the body. */
const fetchScript = `const r = await fetch(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } })
if (!r.ok) process.exit(1)
process.stdout.write(await r.text())`
/** The same with node:http, which does not load fetch's undici. */
const httpScript = `require('node:http').get(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } }, (r) => {
  if (r.statusCode !== 200) process.exit(1)
  r.pipe(process.stdout)
})`

/** Starts Quire as `pnpm start` does (one process, embedded database), gets a token as the README does, and creates a little data. */
async function startQuire(): Promise<{ api: string; token: string }> {
  const [apiPort, webPort] = await harness.freePorts(2)
  const api = `http://127.0.0.1:${apiPort}`
  const web = `http://127.0.0.1:${webPort}`
  // The embedded database, whatever this shell says: DATABASE_URL cannot be emptied, only removed.
  delete process.env.DATABASE_URL
  const serverEnv = {
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    WEB_HOST: '127.0.0.1',
    WEB_PORT: String(webPort),
    CONTENT_URL: 'off',
    API_URL: api,
    WEB_URL: web,
    QUIRE_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '1000000000',
    AUDIT_PRUNE_INTERVAL_MS: '0',
    NODE_ENV: 'development',
  }
  await harness.start('apps/web/src/serve-local.ts', serverEnv, [`${api}/health`, `${web}/health`])
  // `pnpm admin token`, through the running server's operator socket.
  const admin = spawnSync(process.execPath, ['--conditions=source', 'apps/api/src/admin.ts', 'token', '--email', 'bench@example.com'], {
    cwd: root,
    env: { ...childEnv, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout,
  })
  const token = admin.stdout.trim()
  if (admin.status !== 0 || token === '') throw new Error(`admin token failed (${admin.status}): ${admin.stderr}`)
  const call = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
    return (await response.json()) as Record<string, unknown>
  }
  const { username } = (await call('GET', '/api/profile/me')) as { username: string }
  await call('POST', '/api/projects', { ownerUsername: username, slug: 'notes', title: 'Notes', icon: 'n' })
  for (const slug of ['plan', 'minutes', 'readme'])
    await call('POST', '/api/artifacts', {
      ownerUsername: username,
      projectSlug: 'notes',
      slug,
      type: 'md',
      title: slug,
      content: `# ${slug}\n\n${'Quire keeps every version. '.repeat(20)}\n`,
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
  return { api, token }
}

const cleanup = harness.cleanupOnce('bench/cli', 'stopping the server', async () => {
  await harness.stopServers()
  rmSync(home, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

try {
  const { api, token } = await startQuire()
  const url = `${api}/api/profile/artifacts`
  const cli = { AGENT_SERVICE_BASE_URL: api, AGENT_SERVICE_TOKEN: token }
  // What is timed must work: the CLI lists what was created (and the scripts exit 1 on any answer but 200).
  const listed = spawnSync(process.execPath, [bin, 'artifact', 'list', '--format', 'json'], {
    env: { ...childEnv, ...cli },
    encoding: 'utf8',
    timeout,
  })
  const items = listed.status === 0 ? ((JSON.parse(listed.stdout) as { items?: unknown[] }).items?.length ?? -1) : -1
  if (items !== 3)
    throw new Error(`quire artifact list did not list the 3 artifacts (exit ${listed.status}): ${listed.stdout}${listed.stderr}`)

  const cases = {
    floor: () => time(['-e', '0']),
    version: () => time([bin, '--version']),
    help: () => time([bin, '--help']),
    schema: () => time([bin, 'schema']),
    server: () => serverTime(url, token),
    fetch: () => time(['--input-type=module', '-e', fetchScript], { URL: url, TOKEN: token }),
    http: () => time(['-e', httpScript], { URL: url, TOKEN: token }),
    list: () => time([bin, 'artifact', 'list'], cli),
    listNoCache: () => time([bin, 'artifact', 'list'], { ...cli, NODE_DISABLE_COMPILE_CACHE: '1' }),
    ...(other ? { listOther: () => time([other, 'artifact', 'list'], cli) } : {}),
  } satisfies Record<string, () => number | Promise<number>>
  type Case = keyof typeof cases
  const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, [] as number[]])) as Record<Case, number[]>
  // Warm the file cache, the compile cache and the server, then alternate.
  for (const measure of Object.values(cases)) await measure()
  for (let i = 0; i < runs; i++) for (const [name, measure] of Object.entries(cases)) samples[name as Case].push(await measure())

  const ms = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)])) as Record<Case, number>
  const floor = ms.floor
  const target = 2 * floor + ms.server
  const row = (label: string, value: number, goal = '') => [label, value.toFixed(1), `${(value / floor).toFixed(2)}×`, goal]
  process.stdout.write(`Start-up, medians of ${runs} alternating runs (Node ${process.versions.node})\n\n`)
  process.stdout.write(
    `${harness.markdownTable(
      ['case', 'ms', 'ratio', 'target'],
      [
        row('node -e 0 (baseline)', floor),
        row('quire --version', ms.version, '≤ 1.5×'),
        row('quire --help (parser loaded)', ms.help),
        row('quire schema (a command run)', ms.schema),
        row('server time (GET from a warm process)', ms.server),
        row('node -e: fetch the same page', ms.fetch),
        row('node -e: the same with node:http', ms.http),
        row('quire artifact list', ms.list, `≤ ${target.toFixed(1)} ms`),
        row('  the same, compile cache off', ms.listNoCache),
        ...(other && ms.listOther !== undefined ? [row(`quire artifact list of ${other}`, ms.listOther)] : []),
      ],
    )}\n\n`,
  )
  process.stdout.write(
    `Server time: GET ${new URL(url).pathname} with the same token, from this already-running process on a new ` +
      `connection (as a fresh process opens one), to the end of the body. The scripts minus node -e 0 are that plus ` +
      `what a fresh Node loads to send it: ${(ms.fetch - floor).toFixed(1)} ms with fetch (undici), ` +
      `${(ms.http - floor).toFixed(1)} ms with node:http.\n` +
      `Target: quire artifact list ≤ 2 × ${floor.toFixed(1)} + ${ms.server.toFixed(1)} = ${target.toFixed(1)} ms: ` +
      `${ms.list <= target ? 'met' : 'NOT met'} (${ms.list.toFixed(1)} ms; the plain fetch script ${ms.fetch.toFixed(1)} ms).\n`,
  )
} finally {
  await cleanup()
}
