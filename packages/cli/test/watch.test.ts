/**
 * `quire artifact watch` and `quire project watch` in-process (`main()` with captured streams)
 * against a scripted HTTP server that answers `GET /api/events` as the API does, and drops the
 * connection, fails or refuses when told: one line per event (the time of day on a terminal, the
 * ISO time piped, an object a line in JSON mode), the status on standard error, reconnection after
 * the last event with back-off, Ctrl-C ending cleanly with the id to resume from, and a refusal
 * ending the command as every refusal does. Also `quire events`, the one call, as a table.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { backoffMs, eventLine } from '../src/commands/watch.ts'
import type { Io } from '../src/run/context.ts'
import { main } from '../src/run/main.ts'

const artifactId = 'art_01jc0000000000000000000000'

function event(id: number, kind: string, versionNumber: number | null, path = 'ada/notes/plan') {
  return {
    id: String(id),
    kind,
    at: `2026-03-01T09:0${id % 10}:0${id % 7}.000Z`,
    artifactId,
    path,
    projectId: 'prj_01jc0000000000000000000000',
    workspaceId: 'ws_01jc0000000000000000000000',
    versionNumber,
    actor: { kind: 'user', id: 'usr_01jc0000000000000000000000', label: 'ada' },
  }
}

/** What the server does with one request: answer (status, body), drop the connection, or never answer. */
type Step = { status: number; body: unknown } | 'drop' | 'hold'

interface Seen {
  readonly path: string
  readonly query: Record<string, string>
  /** Settles when the client went away (an abort, a drop). */
  readonly gone: Promise<void>
}

let server: Server
let base = ''
let steps: Step[] = []
let seen: Seen[] = []
/** The answer to the by-path lookup of `ada/notes/plan`. */
const resolved = { id: artifactId, ownerUsername: 'ada', projectSlug: 'notes', slug: 'plan' }

function answer(response: ServerResponse, status: number, body: unknown): void {
  const type = status >= 400 ? 'application/problem+json' : 'application/json'
  response.writeHead(status, { 'content-type': type }).end(JSON.stringify(body))
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (url.pathname === '/api/by-path/ada/notes/plan') return answer(response, 200, resolved)
    const gone = new Promise<void>((done) => response.once('close', () => done()))
    seen.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), gone })
    const step = steps.shift() ?? 'hold'
    if (step === 'hold') return
    if (step === 'drop') return void request.socket.destroy()
    answer(response, step.status, step.body)
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((done) => server.close(done))
})
beforeEach(() => {
  steps = []
  seen = []
})

interface Run {
  /** Settles with the exit code. */
  readonly exited: Promise<number>
  stdout(): string
  stderr(): string
  /** Ctrl-C, as the process would get it. */
  interrupt(): void
}

/** Runs `quire` in-process with a token, standard output a pipe (or a terminal). */
function start(args: readonly string[], options: { terminal?: boolean } = {}): Run {
  let stdout = ''
  let stderr = ''
  let listener: (() => void) | null = null
  const io: Io = {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    stdinIsTty: false,
    stdoutIsTty: options.terminal === true,
    stderrIsTty: false,
    readStdin: async () => '',
    onInterrupt: (handler) => {
      listener = handler
      return () => {
        listener = null
      }
    },
  }
  const exited = main(['--base-url', base, ...args], io, { HOME: '/nonexistent', AGENT_SERVICE_TOKEN: 'qk_test_token_value_1234' })
  return {
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    interrupt: () => listener?.(),
  }
}

/** Waits (polling, within the test's timeout) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((next) => setTimeout(next, 10))
}

const batch = (events: unknown[], cursor: string, more = false) => ({ status: 200, body: { events, cursor, more } })
const problem = (status: number, code: string, detail: string) => ({ status, body: { code, detail, status } })
const lines = (text: string) => text.split('\n').filter(Boolean)

describe('quire project watch', { timeout: 30_000 }, () => {
  it('prints a line per event, reconnects after a drop and a 503 from the last event, and stops on Ctrl-C with exit 0', async () => {
    steps = [
      batch([], '10'),
      batch([event(11, 'artifact.version_created', 5), event(12, 'artifact.created', 1, 'ada/notes/idea')], '12'),
      'drop',
      problem(503, 'service_unavailable', 'The service is starting.'),
      batch([event(13, 'artifact.restored', 6)], '13'),
      batch([event(14, 'artifact.access_changed', null), event(15, 'share_link.created', null)], '15'),
      batch([event(16, 'share_link.revoked', null), event(17, 'artifact.deleted', null)], '17'),
      'hold',
    ]
    const run = start(['project', 'watch', 'ada/notes'])
    await until(() => seen.length === 8)
    run.interrupt()
    expect(await run.exited).toBe(0)
    // The held long poll was abandoned, not left waiting.
    await seen[7]?.gone

    expect(lines(run.stdout())).toEqual([
      '2026-03-01T09:01:04.000Z  ada/notes/plan  version 5 appended by ada',
      '2026-03-01T09:02:05.000Z  ada/notes/idea  created, version 1 by ada',
      '2026-03-01T09:03:06.000Z  ada/notes/plan  restored as version 6 by ada',
      '2026-03-01T09:04:00.000Z  ada/notes/plan  access changed by ada',
      '2026-03-01T09:05:01.000Z  ada/notes/plan  share link created by ada',
      '2026-03-01T09:06:02.000Z  ada/notes/plan  share link revoked by ada',
      '2026-03-01T09:07:03.000Z  ada/notes/plan  deleted by ada',
    ])
    expect(lines(run.stderr())).toEqual([
      'Watching ada/notes. Ctrl-C stops.',
      'Disconnected: socket hang up. Reconnecting in 0.5 s after event 12…',
      'Disconnected: The service is starting (HTTP 503). Reconnecting in 1 s after event 12…',
      'Reconnected; resuming after event 12.',
      'Stopped; resume with --after 17.',
    ])
    // From now (no `after`, no wait), then long polls, each after the last event; a reconnection asks at once.
    expect(seen.map((s) => s.query)).toEqual([
      { project: 'ada/notes', wait: '0' },
      { project: 'ada/notes', after: '10', wait: '25' },
      { project: 'ada/notes', after: '12', wait: '25' },
      { project: 'ada/notes', after: '12', wait: '0' },
      { project: 'ada/notes', after: '12', wait: '0' },
      { project: 'ada/notes', after: '13', wait: '25' },
      { project: 'ada/notes', after: '15', wait: '25' },
      { project: 'ada/notes', after: '17', wait: '25' },
    ])
    expect(seen.every((s) => s.path === '/api/events')).toBe(true)
  })

  it('starts after --after; on a terminal the time of day; Ctrl-C during the back-off stops at once', async () => {
    steps = [batch([event(42, 'artifact.version_created', 3)], '42'), 'drop', 'drop', 'drop', 'hold']
    const run = start(['project', 'watch', '--project', 'ada/notes', '--after', '41'], { terminal: true })
    await until(() => run.stderr().includes('Reconnecting in 2 s'))
    const started = performance.now()
    run.interrupt()
    expect(await run.exited).toBe(0)
    // Not after the 2 s of back-off, nor another request.
    expect(performance.now() - started).toBeLessThan(1500)
    expect(seen).toHaveLength(4)
    expect(seen[0]?.query).toEqual({ project: 'ada/notes', after: '41', wait: '0' })
    expect(lines(run.stdout())).toEqual([expect.stringMatching(/^\d{2}:\d{2}:\d{2} {2}ada\/notes\/plan {2}version 3 appended by ada$/)])
    expect(run.stderr()).toContain('Stopped; resume with --after 42.\n')
  })

  it('--format json: the event as one JSON object a line, nothing on standard error; --jq and --fields shape each', async () => {
    const events = [event(5, 'artifact.version_created', 2), event(6, 'artifact.deleted', null)]
    steps = [batch(events, '6'), 'hold']
    const json = start(['project', 'watch', 'ada/notes', '--after', '4', '--format', 'json'])
    await until(() => seen.length === 2)
    json.interrupt()
    expect(await json.exited).toBe(0)
    expect(lines(json.stdout()).map((l) => JSON.parse(l))).toEqual(events)
    expect(json.stderr()).toBe('')

    steps = [batch(events, '6'), 'hold']
    const jq = start(['project', 'watch', 'ada/notes', '--after', '4', '--jq', '"\\(.id) \\(.kind)"'])
    await until(() => seen.length === 4)
    jq.interrupt()
    expect(await jq.exited).toBe(0)
    expect(jq.stdout()).toBe('5 artifact.version_created\n6 artifact.deleted\n')

    steps = [batch(events, '6'), 'hold']
    const fields = start(['project', 'watch', 'ada/notes', '--after', '4', '--fields', 'id,actor.label'])
    await until(() => seen.length === 6)
    fields.interrupt()
    expect(await fields.exited).toBe(0)
    expect(fields.stdout()).toBe('5  ada\n6  ada\n')
    const unknown = await start(['project', 'watch', 'ada/notes', '--fields', 'url']).exited
    expect(unknown).toBe(2)
  })

  it('a refusal ends it with the usual exit code and message: not found at once, a revoked key or a lost scope later', async () => {
    steps = [problem(404, 'not_found', 'No such project, or you may not see it.')]
    const missing = start(['project', 'watch', 'ada/gone'])
    expect(await missing.exited).toBe(3)
    expect(missing.stderr()).toBe('error: No such project, or you may not see it.\nhint: quire project list shows what you can see.\n')
    expect(missing.stdout()).toBe('')

    steps = [batch([], '3'), problem(401, 'invalid_token', 'The token was revoked.')]
    const revoked = start(['project', 'watch', 'ada/notes'])
    expect(await revoked.exited).toBe(4)
    expect(lines(revoked.stderr())).toEqual([
      'Watching ada/notes. Ctrl-C stops.',
      'error: The token was revoked.',
      'hint: Run `quire login`, or pass a token with --token-stdin or AGENT_SERVICE_TOKEN.',
    ])

    steps = [batch([], '3'), problem(403, 'insufficient_scope', 'This token lacks the artifacts:read scope.')]
    const scope = start(['--format', 'json', 'project', 'watch', 'ada/notes'])
    expect(await scope.exited).toBe(5)
    expect(JSON.parse(scope.stderr())).toMatchObject({ error: { code: 'insufficient_scope', exitCode: 5 } })

    steps = [problem(400, 'invalid_cursor', 'No event 99 yet: the newest is 3.')]
    const ahead = start(['project', 'watch', 'ada/notes', '--after', '99'])
    expect(await ahead.exited).toBe(2)
    expect(ahead.stderr()).toContain('error: No event 99 yet: the newest is 3.')
  })

  it('checks its words before calling: the project, --after', async () => {
    const bad = start(['project', 'watch', 'ada'])
    expect(await bad.exited).toBe(2)
    expect(bad.stderr()).toContain('--project "ada" does not name a project.')
    const none = start(['project', 'watch'])
    expect(await none.exited).toBe(2)
    expect(none.stderr()).toContain('Missing PROJECT or --project')
    const after = start(['project', 'watch', 'ada/notes', '--after', 'x1'])
    expect(await after.exited).toBe(2)
    expect(after.stderr()).toContain('--after takes an event id')
    expect(seen).toEqual([])
  })
})

describe('quire artifact watch', { timeout: 30_000 }, () => {
  it('resolves a path or URL once and follows the artifact by its id; its status names it as typed', async () => {
    steps = [batch([], '7'), batch([event(8, 'artifact.version_created', 2)], '8'), 'hold']
    const run = start(['artifact', 'watch', 'https://quire.example/ada/notes/plan'])
    await until(() => seen.length === 3)
    run.interrupt()
    expect(await run.exited).toBe(0)
    expect(seen.map((s) => s.query)).toEqual([
      { artifact: artifactId, wait: '0' },
      { artifact: artifactId, after: '7', wait: '25' },
      { artifact: artifactId, after: '8', wait: '25' },
    ])
    expect(lines(run.stderr())).toEqual(['Watching ada/notes/plan. Ctrl-C stops.', 'Stopped; resume with --after 8.'])
    expect(run.stdout()).toBe('2026-03-01T09:08:01.000Z  ada/notes/plan  version 2 appended by ada\n')

    steps = [batch([], '7'), 'hold']
    const byId = start(['artifact', 'watch', artifactId, '--quiet'])
    await until(() => seen.length === 5)
    byId.interrupt()
    expect(await byId.exited).toBe(0)
    expect(seen[3]?.query).toEqual({ artifact: artifactId, wait: '0' })
    expect(byId.stderr()).toBe('')
  })
})

describe('quire events', { timeout: 30_000 }, () => {
  it('one call: a table of the events, and where to go on from on standard error; JSON as the API answers', async () => {
    steps = [batch([event(11, 'artifact.version_created', 5)], '11')]
    const table = start(['events', '--project', 'ada/notes', '--after', '10', '--wait', '5'])
    expect(await table.exited).toBe(0)
    expect(seen[0]?.query).toEqual({ project: 'ada/notes', after: '10', wait: '5' })
    expect(lines(table.stdout()).map((l) => l.split(/ {2,}/))).toEqual([
      ['ID', 'WHEN', 'PATH', 'KIND', 'VERSION', 'BY'],
      ['11', '2026-03-01T09:01:04.000Z', 'ada/notes/plan', 'artifact.version_created', '5', 'ada'],
    ])
    expect(table.stderr()).toBe('Next: add --after 11.\n')

    steps = [batch([], '11')]
    const none = start(['events', '--artifact', 'ada/notes/plan'])
    expect(await none.exited).toBe(0)
    expect(none.stdout()).toBe('')
    expect(none.stderr()).toContain('No events after 11 yet')

    const body = { events: [event(12, 'artifact.deleted', null)], cursor: '12', more: true }
    steps = [{ status: 200, body }]
    const json = start(['--format', 'json', 'events', '--workspace', 'ws_01jc0000000000000000000000', '--limit', '1'])
    expect(await json.exited).toBe(0)
    expect(JSON.parse(json.stdout())).toEqual(body)
  })
})

describe('the parts', () => {
  it('backs off 0.5 s, 1, 2, 4, 8, then 10 s at most', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(backoffMs)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000])
  })

  it('keeps control characters of a path or a label off the terminal', () => {
    const sneaky = { ...event(1, 'artifact.deleted', null), actor: { kind: 'user', id: 'u', label: `ada${String.fromCharCode(27)}[2J` } }
    expect(eventLine(sneaky as never, false)).toBe('2026-03-01T09:01:01.000Z  ada/notes/plan  deleted by ada [2J')
  })
})
