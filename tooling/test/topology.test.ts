/**
 * Quire scaled out on this machine (issue 18, point 4; docs/deploy.md): HAProxy in front of two
 * API and two web processes (the built apps), PgBouncer in transaction mode in front of one
 * PostgreSQL, rate limits in one Redis database, the development OpenID provider as one process of
 * its own. Every request goes through the balancer (or, to force a step onto a given process, to
 * that process's own port), and the answers' X-Served-By prove which process served them.
 *
 * Needs the build (`pnpm exec turbo run build --filter=@quire/api... --filter=@quire/web...`),
 * haproxy, pgbouncer, PostgreSQL and Redis (tooling/scripts/test-prerequisites.sh).
 */
import { freshTestDatabase, type TestDatabase } from '@quire/storage/testing'
import { processAlive } from '@quire/testing/processes'
import { timeoutFor, until } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { Browser, consentFields, locationOf, mcpAnswer, pkce, signIn } from '../topology/http-client.ts'
import { startTopology, startTopologyWaits, type Topology } from '../topology/topology.ts'
import '@quire/testing/test-database'

const redirectUri = 'http://127.0.0.1:4567/callback'

interface Person {
  readonly browser: Browser
  readonly username: string
  /** An OAuth token for the API. */
  readonly apiToken: string
}

/** Registers an OAuth client, has `person` approve it on `consentOn`, exchanges the code on `tokenOn`. */
async function authorize(browser: Browser, consentOn: string, tokenOn: string, resource: string) {
  const registered = await fetch(`${tokenOn}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'topology test',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })
  expect(registered.status).toBe(201)
  const clientId = ((await registered.json()) as { client_id: string }).client_id
  const { verifier, challenge } = pkce()
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    state: 'st',
  })
  const consent = await browser.send(`${consentOn}/oauth2/authorize?${query}`)
  expect(consent.status).toBe(200)
  const page = await consent.text()
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1]
  expect(csrf).toBeTruthy()
  const approved = await browser.send(`${consentOn}/oauth2/authorize`, {
    form: { ...consentFields(page), _csrf: csrf as string, decision: 'approve' },
  })
  expect(approved.status).toBe(303)
  const code = new URL(locationOf(approved, consentOn) ?? '').searchParams.get('code')
  expect(code).toBeTruthy()
  const token = await fetch(`${tokenOn}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code as string,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }).toString(),
  })
  const body = (await token.json()) as { access_token?: string }
  expect(token.status, JSON.stringify(body)).toBe(200)
  return { accessToken: body.access_token as string, servedBy: token.headers.get('x-served-by') }
}

async function api(top: Topology, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${top.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return {
    status: response.status,
    servedBy: response.headers.get('x-served-by'),
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  }
}

interface StreamMessage {
  readonly comment?: string
  readonly event?: { readonly versionNumber: number | null; readonly kind: string }
  readonly closed?: unknown
}

/** An SSE stream's messages as they arrive (comments and events), until closed. */
async function openEventStream(url: string, token: string) {
  const stop = new AbortController()
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: stop.signal })
  expect(response.status).toBe(200)
  const messages: StreamMessage[] = []
  const reading = (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of response.body as ReadableStream<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const lines = buffer.slice(0, end).split('\n')
        buffer = buffer.slice(end + 2)
        const data = lines.find((l) => l.startsWith('data: '))?.slice(6)
        const comment = lines
          .find((l) => l.startsWith(':'))
          ?.slice(1)
          .trim()
        if (lines.includes('event: closed')) messages.push({ closed: data })
        else messages.push({ ...(comment === undefined ? {} : { comment }), ...(data === undefined ? {} : { event: JSON.parse(data) }) })
      }
    }
  })().catch(() => {})
  return {
    /** Polls the messages every 20 ms until `done` holds; gives up after 10 s naming what it awaited. */
    async until(what: string, done: (messages: readonly StreamMessage[]) => boolean) {
      const deadline = performance.now() + 10_000
      while (!done(messages)) {
        if (performance.now() > deadline) throw new Error(`Gave up after 10 s waiting for ${what}; got ${JSON.stringify(messages)}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    close() {
      stop.abort()
      void reading
    },
  }
}

function artifactBody(username: string, slug: string, content = '# Hello\n') {
  return {
    ownerUsername: username,
    projectSlug: 'notes',
    slug,
    type: 'md',
    title: slug,
    content,
    changelog: 'first',
    access: { publicView: false, publicEdit: false },
  }
}

describe('the scale-out topology (HAProxy, 2 API, 2 web, PgBouncer, Redis)', () => {
  let database: TestDatabase
  let top: Topology
  let person: Person

  beforeAll(async () => {
    // An empty database: the four processes start at once and migrate it through PgBouncer.
    database = await freshTestDatabase(inject('testRun'), 'postgres', { poolSize: 2, empty: true })
    // High limits here: the writers below would spend a normal budget; the limit has its own run.
    top = await startTopology({ databaseUrl: database.url as string, idp: true, env: { RATE_LIMIT_MAX: '1000000' } })
  }, timeoutFor(startTopologyWaits))
  afterAll(async () => {
    await top?.stop()
    await database?.close()
  }, timeoutFor(1))

  it('migrated the empty database once, through PgBouncer, with four processes starting at once, and left no lock held', async () => {
    const migrations = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM kysely_migration', [])
    expect(migrations[0]?.n).toBeGreaterThanOrEqual(7)
    const locks = await database.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      [],
    )
    expect(locks[0]?.n).toBe(0)
  })

  it('signs in on web_1 and finishes the callback on web_2; the session works on both', async () => {
    const browser = new Browser(top.webUrl)
    const { callback } = await signIn(browser, 'ada@example.com', top.direct.web_1 as string, top.direct.web_2 as string)
    expect(callback.status).toBe(303)
    expect(browser.has('quire_session')).toBe(true)
    for (const web of ['web_1', 'web_2']) {
      const settings = await browser.send(`${top.direct[web]}/settings`)
      expect(settings.status, web).toBe(200)
      expect(await settings.text()).toContain('ada@example.com')
    }
    // And through the balancer: both processes, one session.
    const servedBy = new Set<string>()
    for (let i = 0; i < 4; i++) {
      const page = await browser.send(`${top.webUrl}/settings`)
      expect(page.status).toBe(200)
      await page.arrayBuffer()
      servedBy.add(page.headers.get('x-served-by') ?? '')
    }
    expect([...servedBy].sort()).toEqual(['web_1', 'web_2'])

    const { accessToken } = await authorize(browser, top.direct.web_1 as string, top.direct.web_2 as string, top.apiUrl)
    const me = await api(top, accessToken, 'GET', '/api/profile/me')
    expect(me.status).toBe(200)
    person = { browser, username: me.json.username as string, apiToken: accessToken }
    expect(
      (await api(top, accessToken, 'POST', '/api/projects', { ownerUsername: person.username, slug: 'notes', title: 'Notes', icon: '📝' }))
        .status,
    ).toBe(201)
  })

  it('authorizes an OAuth client on web_1, exchanges the code on web_2; the token works on both (MCP, alternating)', async () => {
    expect(person).toBeDefined()
    const resource = `${top.webUrl}/mcp`
    const { accessToken } = await authorize(person.browser, top.direct.web_1 as string, top.direct.web_2 as string, resource)
    const mcp = async (on: string, id: number, method: string, params: Record<string, unknown>) => {
      const response = await fetch(`${on}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      })
      expect(response.status, `${method} on ${on}`).toBe(200)
      return { servedBy: response.headers.get('x-served-by'), answer: await mcpAnswer(response) }
    }
    // Straight to each process: initialize on web_1, the rest on web_2 and back.
    const init = await mcp(top.direct.web_1 as string, 1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'topology', version: '0' },
    })
    expect(init.answer.result?.serverInfo).toBeDefined()
    const tools = await mcp(top.direct.web_2 as string, 2, 'tools/list', {})
    expect(((tools.answer.result?.tools ?? []) as { name: string }[]).map((t) => t.name)).toContain('get_current_principal')
    const whoami = await mcp(top.direct.web_1 as string, 3, 'tools/call', { name: 'get_current_principal', arguments: {} })
    expect(JSON.stringify(whoami.answer.result)).toContain(person.username)
    // Through the balancer: consecutive calls alternate between the processes, all succeed.
    const servedBy: string[] = []
    for (let i = 0; i < 6; i++) {
      const call = await mcp(
        top.webUrl,
        10 + i,
        i % 2 ? 'tools/list' : 'tools/call',
        i % 2 ? {} : { name: 'list_workspaces', arguments: {} },
      )
      expect(call.answer.error, JSON.stringify(call.answer)).toBeUndefined()
      expect((call.answer.result as { isError?: boolean }).isError ?? false).toBe(false)
      servedBy.push(call.servedBy ?? '')
    }
    expect(new Set(servedBy)).toEqual(new Set(['web_1', 'web_2']))
  })

  it('of 100 concurrent appends with the same expectedLatestVersion exactly one wins, across both API processes', async () => {
    const created = await api(top, person.apiToken, 'POST', '/api/artifacts', artifactBody(person.username, 'race'))
    expect(created.status).toBe(201)
    const id = created.json.id as string
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api(top, person.apiToken, 'POST', `/api/artifacts/${id}/versions`, { content: `writer ${i}\n`, expectedLatestVersion: 1 }),
      ),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s >= 200 && s < 300)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(99)
    expect(new Set(results.map((r) => r.servedBy))).toEqual(new Set(['api_1', 'api_2']))
    const versions = await database.db.selectFrom('versions').select('number').where('artifact_id', '=', id).orderBy('number').execute()
    expect(versions.map((v) => v.number)).toEqual([1, 2])
  })

  it('a change committed through one API process reaches a stream on the other within 1 s (p95), and by polling when LISTEN is cut', async () => {
    const created = await api(top, person.apiToken, 'POST', '/api/artifacts', artifactBody(person.username, 'live'))
    expect(created.status).toBe(201)
    const id = created.json.id as string
    const stream = await openEventStream(`${top.direct.api_2}/api/events?artifact=${id}`, person.apiToken)
    try {
      await stream.until('the stream to start', (messages) => messages.some((m) => m.comment?.startsWith('following')))
      const append = (expected: number) =>
        fetch(`${top.direct.api_1}/api/artifacts/${id}/versions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${person.apiToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content: `v${expected + 1}\n`, expectedLatestVersion: expected }),
        }).then(async (r) => {
          expect(r.status, await r.text()).toBe(201)
        })
      const latencies: number[] = []
      let version = 1
      for (let i = 0; i < 20; i++) {
        const started = performance.now()
        const done = append(version)
        version++
        const wanted = version
        await stream.until(`version ${wanted} on api_2`, (messages) => messages.some((m) => m.event?.versionNumber === wanted))
        latencies.push(performance.now() - started)
        await done
      }
      latencies.sort((a, b) => a - b)
      const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1] as number
      console.log(`commit → stream on the other API process: p50 ${latencies[9]?.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`)
      expect(p95).toBeLessThan(1000)

      // Cut every LISTEN session, again and again: the feeds fall back to polling (EVENTS_POLL_MS, 2 s).
      let cut = 0
      let cutting = true
      const cutter = (async () => {
        while (cutting) {
          const killed = await database.query<{ n: number }>(
            `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
            [],
          )
          cut += killed[0]?.n ?? 0
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })()
      try {
        await new Promise((resolve) => setTimeout(resolve, 300))
        const polled: number[] = []
        for (let i = 0; i < 3; i++) {
          const started = performance.now()
          await append(version)
          version++
          const wanted = version
          await stream.until(`version ${wanted} on api_2 with LISTEN cut`, (messages) =>
            messages.some((m) => m.event?.versionNumber === wanted),
          )
          polled.push(performance.now() - started)
        }
        console.log(`with LISTEN cut: ${polled.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`)
        expect(Math.max(...polled)).toBeLessThan(6000)
      } finally {
        cutting = false
        await cutter
      }
      expect(cut).toBeGreaterThan(0)
    } finally {
      stream.close()
    }
  })

  // Waits: the appends before the kill, HAProxy seeing it, the writers' answers after.
  it('keeps every acknowledged write when one API process is killed -9 under load', { timeout: timeoutFor(3) }, async () => {
    const writers = 20
    const ids: string[] = []
    for (let i = 0; i < writers; i++) {
      const created = await api(top, person.apiToken, 'POST', '/api/artifacts', artifactBody(person.username, `load-${i}`))
      expect(created.status).toBe(201)
      ids.push(created.json.id as string)
    }
    const acknowledged = new Map<string, number[]>(ids.map((id) => [id, [1]]))
    const tally = { ok: 0, conflict: 0, failed: 0, okAfterDown: 0, failedAfterDown: 0, servedAfterDown: new Set<string>() }
    // Killed with the writers in full flow (each has had five appends acknowledged, on average);
    // each writer then goes on until it has had this many answers after HAProxy saw the dead process DOWN.
    const acknowledgedBeforeKill = 5 * writers
    const answersAfterDown = 3
    let down = false
    let killerFailed = false
    // Settles with the killer's failure, if any (the writers stop then): thrown once they have.
    const killer = (async () => {
      await until(`${acknowledgedBeforeKill} acknowledged appends`, () => tally.ok >= acknowledgedBeforeKill)
      await top.apis[0]?.kill()
      await top.untilServer('api', 'api_1', 'DOWN')
      down = true
    })().then(
      () => null,
      (error: unknown) => {
        killerFailed = true
        return error
      },
    )
    await Promise.all(
      ids.map(async (id) => {
        let expected = 1
        let after = 0
        while (!killerFailed && (!down || after < answersAfterDown)) {
          const afterDown = down
          const r = await api(top, person.apiToken, 'POST', `/api/artifacts/${id}/versions`, {
            content: `v${expected + 1}\n`,
            expectedLatestVersion: expected,
          }).catch(() => ({ status: 0, servedBy: null, json: {} as Record<string, unknown> }))
          if (r.status === 201) {
            tally.ok++
            expected = r.json.versionNumber as number
            acknowledged.get(id)?.push(expected)
          } else if (r.status === 409) {
            tally.conflict++
            expected = r.json.latestVersion as number
          } else tally.failed++
          if (afterDown) {
            after++
            if (r.status === 201 || r.status === 409) tally.okAfterDown++
            else tally.failedAfterDown++
            tally.servedAfterDown.add(r.servedBy ?? '')
          }
        }
      }),
    )
    const killFailure = await killer
    if (killFailure) throw killFailure
    console.info(
      `kill -9 under load: ${tally.ok} appends acknowledged, ${tally.conflict} conflicts (a write whose answer was lost), ${tally.failed} failed; after api_1 was DOWN: ${tally.okAfterDown} answered, ${tally.failedAfterDown} failed`,
    )
    expect(tally.ok).toBeGreaterThan(0)
    expect(tally.okAfterDown).toBeGreaterThan(0)
    expect(tally.failedAfterDown).toBe(0)
    expect([...tally.servedAfterDown]).toEqual(['api_2'])
    // Every acknowledged version is in the database.
    const rows = await database.db.selectFrom('versions').select(['artifact_id', 'number']).where('artifact_id', 'in', ids).execute()
    const stored = new Set(rows.map((r) => `${r.artifact_id}/${r.number}`))
    const missing = [...acknowledged].flatMap(([id, numbers]) => numbers.filter((n) => !stored.has(`${id}/${n}`)).map((n) => `${id}/${n}`))
    expect(missing).toEqual([])
    // And the API, through the balancer, serves them from the survivor.
    const one = await api(top, person.apiToken, 'GET', `/api/artifacts/${ids[0]}`)
    expect(one.status).toBe(200)
    expect(one.servedBy).toBe('api_2')
  })
})

describe('one rate limit across every process', () => {
  let database: TestDatabase
  let top: Topology
  const max = 10

  beforeAll(async () => {
    // An empty database: the four processes start at once and migrate it through PgBouncer.
    database = await freshTestDatabase(inject('testRun'), 'postgres', { poolSize: 2, empty: true })
    top = await startTopology({ databaseUrl: database.url as string, env: { RATE_LIMIT_MAX: String(max) } })
  }, timeoutFor(startTopologyWaits))
  afterAll(async () => {
    await top?.stop()
    await database?.close()
  }, timeoutFor(1))

  it(`refuses the API's requests after ${max} in total, spread over both processes, not 2 × ${max}`, async () => {
    const answers: { status: number; servedBy: string | null }[] = []
    for (let i = 0; i < 3 * max; i++) {
      const response = await fetch(`${top.apiUrl}/api/profile/me`)
      await response.arrayBuffer()
      answers.push({ status: response.status, servedBy: response.headers.get('x-served-by') })
    }
    const counted = answers.filter((a) => a.status !== 429)
    expect(counted).toHaveLength(max)
    expect(answers.slice(max).every((a) => a.status === 429)).toBe(true)
    expect(new Set(counted.map((a) => a.servedBy))).toEqual(new Set(['api_1', 'api_2']))
    expect(new Set(answers.slice(max).map((a) => a.servedBy))).toEqual(new Set(['api_1', 'api_2']))
  })

  it("shares the web app's per-address limits too (the token endpoint: 120 a minute)", async () => {
    const statuses: { status: number; servedBy: string | null }[] = []
    for (let i = 0; i < 130; i++) {
      const response = await fetch(`${top.webUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=nope',
      })
      await response.arrayBuffer()
      statuses.push({ status: response.status, servedBy: response.headers.get('x-served-by') })
    }
    expect(statuses.slice(0, 120).every((s) => s.status !== 429)).toBe(true)
    expect(statuses.slice(120).every((s) => s.status === 429)).toBe(true)
    expect(new Set(statuses.slice(120).map((s) => s.servedBy))).toEqual(new Set(['web_1', 'web_2']))
  })

  it('stops every process it started, HAProxy and PgBouncer included', { timeout: timeoutFor(1) }, async () => {
    const pids = Object.entries(top.pids)
    expect(pids.map(([name]) => name).sort()).toEqual(['api_1', 'api_2', 'haproxy', 'pgbouncer', 'web_1', 'web_2'])
    expect(pids.filter(([, pid]) => !processAlive(pid))).toEqual([])
    await top.stop()
    expect(pids.filter(([, pid]) => processAlive(pid))).toEqual([])
  })
})
