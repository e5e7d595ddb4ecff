/**
 * bench/mcp: reading an artifact's content over MCP (`tools/call get_artifact_content`, Streamable
 * HTTP, `POST /mcp` on the web app) against the REST read (`GET /api/artifacts/:id/content`) of
 * the same artifact with the same API key, in the same run, one artifact over and over and spread
 * at random over `--spread` artifacts of 8 owners (bench/api's spread: each request draws an
 * artifact and one of its owner's keys, the same draw on both sides). Both apps run as `pnpm start`
 * runs them (apps/web/src/serve-local.ts: the API and the web app in one process, on one
 * runtime), here on PostgreSQL, with autocannon on 127.0.0.1. Prints req/s, p99, CPU per request
 * and MCP/REST.
 *
 *   pnpm bench mcp [--duration 5] [--connections 50] [--rounds 5] [--pool 10] [--spread 2000] [--only latest]
 *
 * QUIRE_BENCH_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the server.
 */
import type autocannon from 'autocannon'
import * as harness from '../harness.ts'
import { withLocalQuire } from '../local-quire.ts'

const { duration, connections, rounds, pool, only, spread } = harness.loadOptions(
  'database pool size of the one runtime both surfaces share',
)
/** The MCP revision the requests announce (the transport answers 400 to one it does not support). */
const protocolVersion = '2025-11-25'

/** One side of a case: what autocannon sends, and the exact body every answer must carry. */
interface Target {
  readonly url: string
  readonly method: 'GET' | 'POST'
  readonly headers: Record<string, string>
  readonly body?: string
}

/** One request of a spread case: a method, a path, headers and a body. */
interface Drawn {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string
}

/** One side of a spread case: a request drawn anew each time (`draw`), and what every answer's body must pass. */
interface Spread {
  readonly url: string
  readonly draw: () => Drawn
  readonly verifyBody: (body: string) => boolean
}

/** A success of `tools/call` (its structuredContent is there only on success), not a protocol error or an isError result. */
const isToolSuccess = (body: string) => body.includes('"jsonrpc":"2.0"') && body.includes('"structuredContent":{')

/** Loads one side of a case, autocannon checking every answer against `expectBody`. */
function measure(
  server: harness.Server,
  target: Target,
  expectBody: string,
  extra: Partial<autocannon.Options> = {},
): Promise<harness.Figures> {
  return harness.load(server, duration, { connections, ...target, expectBody, ...extra })
}

/** Sends `target` once; its body, after checking it is a 200 carrying `content` (and passing `check`). */
async function answerOf(target: Target, content: string, check: (body: string) => boolean = () => true): Promise<string> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body ?? null })
  const body = await response.text()
  if (response.status !== 200 || !check(body))
    throw new Error(`${target.method} ${target.url} answered ${response.status}, not the content:\n${body.slice(0, 600)}`)
  if (!body.includes(JSON.stringify(content).slice(1, -1)) && !body.includes(content))
    throw new Error(`${target.method} ${target.url} did not carry the artifact's content:\n${body.slice(0, 600)}`)
  return body
}

const spreadShape = { owners: 8, keysPerOwner: 2, artifacts: spread }
const seeding = Date.now()
await withLocalQuire('bench/mcp', { pool, readyPath: '/mcp', spread: spreadShape }, async ({ api, web, server, fixtures }) => {
  process.stderr.write(`seeded ${spread} spread artifacts of 8 owners in ${((Date.now() - seeding) / 1000).toFixed(0)} s\n`)
  const bearer = `Bearer ${fixtures.token}`
  const rest = (id: string, version?: number): Target => ({
    url: `${api}/api/artifacts/${id}/content${version === undefined ? '' : `?version=${version}`}`,
    method: 'GET',
    headers: { authorization: bearer },
  })
  const mcpHeaders = (key: string) => ({
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': protocolVersion,
    authorization: `Bearer ${key}`,
  })
  const mcpBody = (id: string, version?: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_artifact_content', arguments: { artifactId: id, ...(version === undefined ? {} : { versionNumber: version }) } },
    })
  const mcp = (id: string, version?: number): Target => ({
    url: `${web}/mcp`,
    method: 'POST',
    headers: mcpHeaders(fixtures.token),
    body: mcpBody(id, version),
  })
  const isToolResult = (body: string) => {
    try {
      const { result } = JSON.parse(body) as { result?: { isError?: boolean } }
      return result !== undefined && result.isError !== true
    } catch {
      return false
    }
  }

  // Version 2 of the private artifact is its latest; version 1 and the long history's head hold the seed's content.
  const latest = `${fixtures.content}\nv2\n`
  const one = { connections: 1 }
  const cases: { name: string; target: number | null; content: string; rest: Target; mcp: Target; extra?: Partial<autocannon.Options> }[] =
    [
      {
        name: 'latest version, owner API key',
        target: 0.75,
        content: latest,
        rest: rest(fixtures.privateId),
        mcp: mcp(fixtures.privateId),
      },
      {
        name: 'pinned version, owner API key',
        target: 0.75,
        content: fixtures.content,
        rest: rest(fixtures.privateId, 1),
        mcp: mcp(fixtures.privateId, 1),
      },
      {
        name: 'latest of 10,000 versions, owner',
        target: 0.75,
        content: fixtures.content,
        rest: rest(fixtures.longHistoryId),
        mcp: mcp(fixtures.longHistoryId),
      },
      // Under load the API answers the reads of one event-loop turn with one statement (coalesce.ts);
      // one connection at a time there is nothing to share, which shows the per-request cost alone.
      {
        name: 'latest version, owner, 1 connection',
        target: null,
        content: latest,
        rest: rest(fixtures.privateId),
        mcp: mcp(fixtures.privateId),
        extra: one,
      },
    ]

  /**
   * The spread: each request draws one of the artifacts and one of its owner's keys (the same
   * draw on both sides), latest or version 1. REST's answers are checked by status (autocannon
   * counts non-2xx), MCP's must be tool successes.
   */
  const draw = () => {
    const a = fixtures.spread[Math.floor(Math.random() * fixtures.spread.length)] as (typeof fixtures.spread)[number]
    return { id: a.id, key: a.keys[Math.floor(Math.random() * a.keys.length)] ?? '' }
  }
  const restSpread = (version?: number): Spread => ({
    url: api,
    draw: () => {
      const { id, key } = draw()
      const path = `/api/artifacts/${id}/content${version === undefined ? '' : `?version=${version}`}`
      return { method: 'GET', path, headers: { authorization: `Bearer ${key}` } }
    },
    verifyBody: (body) => body.startsWith('{"artifactId":'),
  })
  const mcpSpread = (version?: number): Spread => ({
    url: web,
    draw: () => {
      const { id, key } = draw()
      return { method: 'POST', path: '/mcp', headers: mcpHeaders(key), body: mcpBody(id, version) }
    },
    verifyBody: isToolSuccess,
  })
  const spreadCases: { name: string; target: number | null; rest: Spread; mcp: Spread }[] = [
    { name: `spread: latest version of ${spread} artifacts, owners' API keys`, target: 0.75, rest: restSpread(), mcp: mcpSpread() },
    { name: `spread: pinned version of ${spread} artifacts, owners' API keys`, target: 0.75, rest: restSpread(1), mcp: mcpSpread(1) },
  ]
  const spreadLoad = (side: Spread): autocannon.Options => ({
    connections,
    url: side.url,
    requests: [{ setupRequest: (req) => ({ ...req, ...side.draw() }) }],
    verifyBody: (body) => typeof body === 'string' && side.verifyBody(body),
  })

  const chosen = cases.filter((c) => !only || c.name.includes(only))
  const chosenSpread = spreadCases.filter((c) => !only || c.name.includes(only))
  if (chosen.length + chosenSpread.length === 0) throw new Error(`No case's name contains ${JSON.stringify(only)}.`)

  // Every answer of the load must be the one checked here, byte for byte (autocannon counts the others).
  const expected = new Map<Target, string>()
  for (const c of chosen) {
    expected.set(c.rest, await answerOf(c.rest, c.content))
    expected.set(c.mcp, await answerOf(c.mcp, c.content, isToolResult))
  }
  // Both surfaces get the same warm-up (JIT, prepared statements, caches) before anything counts.
  for (const c of chosen)
    for (const side of [c.rest, c.mcp]) await harness.warm({ connections, ...side, expectBody: expected.get(side) ?? '' })

  // One drawn request of each spread side first, checked here, so that a broken side fails loudly before any load.
  for (const c of chosenSpread)
    for (const side of [c.rest, c.mcp]) {
      const req = side.draw()
      const response = await fetch(`${side.url}${req.path}`, { method: req.method, headers: req.headers, body: req.body ?? null })
      const body = await response.text()
      if (response.status !== 200 || !side.verifyBody(body))
        throw new Error(`${req.method} ${req.path} answered ${response.status}, not a read:\n${body.slice(0, 600)}`)
    }
  for (const c of chosenSpread) for (const side of [c.rest, c.mcp]) await harness.warm(spreadLoad(side))

  const rows: string[][] = []
  let failed = false
  const runs = [
    ...chosen.map((c) => ({
      ...c,
      rest: () => measure(server, c.rest, expected.get(c.rest) ?? '', c.extra),
      mcp: () => measure(server, c.mcp, expected.get(c.mcp) ?? '', c.extra),
    })),
    ...chosenSpread.map((c) => ({
      ...c,
      rest: () => harness.load(server, duration, spreadLoad(c.rest)),
      mcp: () => harness.load(server, duration, spreadLoad(c.mcp)),
    })),
  ]
  for (const c of runs) {
    // REST is the baseline MCP is held against: rounds alternate REST, MCP, REST, …
    const sides = await harness.alternate(rounds, c.rest, c.mcp)
    const r = harness.medians(sides.baseline)
    const m = harness.medians(sides.quire)
    const ratio = m.rps / r.rps
    const restBad = harness.failures(sides.baseline)
    const mcpBad = harness.failures(sides.quire)
    failed ||= restBad + mcpBad > 0
    rows.push([c.name, ...harness.sideCells(r), ...harness.sideCells(m), ...harness.ratioCells(ratio, c.target), `${restBad} / ${mcpBad}`])
    process.stderr.write(`${c.name}: REST ${r.rps.toFixed(0)} req/s, MCP ${m.rps.toFixed(0)} req/s (${ratio.toFixed(2)}×)\n`)
  }
  const header = [
    'case',
    'REST req/s',
    'REST p99',
    'REST CPU µs',
    'MCP req/s',
    'MCP p99',
    'MCP CPU µs',
    'MCP/REST',
    'target',
    'met',
    'bad REST / MCP',
  ]
  console.log(
    `\nbench/mcp: ${connections} connections, ${rounds} alternating rounds of ${duration} s per side (medians), ` +
      `one server process (serve-local.ts), pool ${pool}, PostgreSQL, node ${process.version}\n`,
  )
  console.log(harness.markdownTable(header, rows))
  const sizes = chosen[0]
    ? ` Answer bodies (first case): REST ${expected.get(chosen[0].rest)?.length} B, MCP ${expected.get(chosen[0].mcp)?.length} B.`
    : ''
  console.log(
    `\nMCP: POST /mcp tools/call get_artifact_content (MCP-Protocol-Version ${protocolVersion}); REST: GET /api/artifacts/:id/content;\n` +
      `the same all-scopes API key (spread: the drawn artifact's owner's).${sizes}\n` +
      'CPU µs: CPU time per request in the server process + in its PostgreSQL backends (from /proc).\n' +
      'bad: socket errors, timeouts, non-2xx and answers differing from the checked one, over all rounds; must be 0.',
  )
  if (failed) process.exitCode = 1
})
