/**
 * `quire project watch` and `quire artifact watch` as a person runs them: the CLI as a child
 * process against the real API on this test's engine, while the owner writes over REST. Each change
 * is one line on standard output as it happens (the ISO time piped, the time of day on a
 * terminal), the status on standard error; Ctrl-C ends it with exit 0 and the id to resume from,
 * and `--after` resumes there without a gap. A connection cut by a proxy is reconnected after the
 * last event, and what happened meanwhile still comes; a revoked key ends the watch with exit 4.
 */
import type { ChildProcess } from 'node:child_process'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { issueOperatorToken } from '@quire/core'
import { signalGroup, spawnTracked, type WatchedChild, watch } from '@quire/testing/processes'
import { timeoutFor, untilExit, untilLine } from '@quire/testing/waits'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { cliEntry } from '../../../packages/cli/test/quire-process.ts'
import { startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let planId = ''
let version = 1
/** Every watcher a test started: stopped after it, however it ended. */
const started: ChildProcess[] = []

const env = (token: string, extra: Record<string, string> = {}) => ({
  AGENT_SERVICE_BASE_URL: web.apiUrl,
  AGENT_SERVICE_TOKEN: token,
  AGENT_SERVICE_NO_INPUT: '1',
  HOME: '/nonexistent',
  PATH: process.env.PATH ?? '',
  LANG: 'C.UTF-8',
  ...extra,
})

/** `quire` with these arguments, running until stopped, its output watched. */
function quire(args: readonly string[], environment: Record<string, string>): { child: ChildProcess; watched: WatchedChild } {
  const child = spawnTracked(process.execPath, ['--conditions=source', cliEntry, ...args], {
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  started.push(child)
  return { child, watched: watch(child) }
}

/** Ctrl-C, and how it ended. */
async function interrupt(child: ChildProcess, watched: WatchedChild) {
  signalGroup(child, 'SIGINT')
  return untilExit(watched)
}

async function append(content: string): Promise<number> {
  const made = await restCall(web, owner.token, 'POST', `/api/artifacts/${planId}/versions`, {
    content,
    changelog: 'more',
    expectedLatestVersion: version,
  })
  version = made.versionNumber as number
  return version
}

/** The newest event id of the project, as the API says. */
async function newestEvent(): Promise<string> {
  const batch = await restCall(web, owner.token, 'GET', `/api/events?project=${owner.username}/notes&after=0&limit=500`)
  return String(batch.cursor)
}

/** A TCP proxy to the API that can cut every connection and refuse new ones until let through again. */
interface Proxy {
  readonly url: string
  cut(): void
  restore(): void
  close(): Promise<void>
}

async function startProxy(target: URL): Promise<Proxy> {
  const open = new Set<Socket>()
  let down = false
  const server: Server = createServer((socket) => {
    if (down) return void socket.destroy()
    const upstream = connect(Number(target.port), target.hostname)
    for (const end of [socket, upstream]) {
      open.add(end)
      end.once('close', () => open.delete(end))
      end.on('error', () => {})
    }
    socket.pipe(upstream).pipe(socket)
    socket.once('close', () => upstream.destroy())
    upstream.once('close', () => socket.destroy())
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    cut() {
      down = true
      for (const socket of open) socket.destroy()
    },
    restore() {
      down = false
    },
    async close() {
      for (const socket of open) socket.destroy()
      await new Promise((done) => server.close(done))
    },
  }
}

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, 'ada@example.com')
  await restCall(web, owner.token, 'POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
  const plan = await restCall(web, owner.token, 'POST', '/api/artifacts', {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug: 'plan',
    type: 'md',
    title: 'Plan',
    content: '# Plan\n',
    changelog: 'first',
    access: { publicView: false, publicEdit: false },
  })
  planId = String(plan.id)
})
afterEach(async () => {
  // A watcher left running by a failed test: stopped, and waited for.
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    signalGroup(child, 'SIGKILL')
    await untilExit(watch(child)).catch(() => {})
  }
})
afterAll(async () => {
  await web?.close()
})

describe('quire project watch and artifact watch', { timeout: timeoutFor(8) }, () => {
  it('prints each change as it happens, and Ctrl-C stops it with exit 0 and the id to resume from', async () => {
    const path = `${owner.username}/notes`
    const { child, watched } = quire(['project', 'watch', path], env(owner.token))
    await untilLine(watched, new RegExp(`^Watching ${path}\\. Ctrl-C stops\\.$`))

    const appended = await append('# Plan\n\nTwo.\n')
    await untilLine(watched, new RegExp(`^\\S+Z  ${path}/plan  version ${appended} appended by ${owner.username}$`))
    const idea = await restCall(web, owner.token, 'POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug: 'idea',
      type: 'txt',
      title: 'Idea',
      content: 'An idea.\n',
      changelog: 'first',
      access: { publicView: false, publicEdit: false },
    })
    await restCall(web, owner.token, 'DELETE', `/api/artifacts/${String(idea.id)}`)
    await untilLine(watched, new RegExp(`  ${path}/idea  deleted by ${owner.username}$`))

    const exit = await interrupt(child, watched)
    expect(exit, watched.output()).toEqual({ code: 0, signal: null })
    const lines = watched.stdout().trimEnd().split('\n')
    expect(lines.map((line) => line.split('  ').slice(1))).toEqual([
      [`${path}/plan`, `version ${appended} appended by ${owner.username}`],
      [`${path}/idea`, `created, version 1 by ${owner.username}`],
      [`${path}/idea`, `deleted by ${owner.username}`],
    ])
    // Piped, the time in full.
    for (const line of lines) expect(Date.parse(line.split('  ')[0] ?? '')).not.toBeNaN()
    const newest = await newestEvent()
    expect(watched.stderr()).toBe(`Watching ${path}. Ctrl-C stops.\nStopped; resume with --after ${newest}.\n`)

    // Resumed with --after, what happened meanwhile comes first, in JSON one object a line.
    const missed = await append('# Plan\n\nThree.\n')
    const again = quire(['project', 'watch', path, '--after', newest, '--format', 'json'], env(owner.token))
    await untilLine(again.watched, /^\{.*"kind":"artifact\.version_created"/)
    const resumed = await interrupt(again.child, again.watched)
    expect(resumed).toEqual({ code: 0, signal: null })
    const events = again.watched
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(events).toEqual([
      expect.objectContaining({ kind: 'artifact.version_created', path: `${path}/plan`, versionNumber: missed, artifactId: planId }),
    ])
    expect(Number(events[0].id)).toBeGreaterThan(Number(newest))
    expect(again.watched.stderr()).toBe('')
  })

  it('on a terminal, the time of day; Ctrl-C typed at the terminal stops it', async () => {
    const path = `${owner.username}/notes`
    const command = [process.execPath, '--conditions=source', cliEntry, 'artifact', 'watch', `${path}/plan`]
      .map((word) => `'${word.replaceAll("'", `'\\''`)}'`)
      .join(' ')
    const child = spawnTracked('script', ['-qec', `stty cols 200 rows 50 2>/dev/null; exec ${command}`, '/dev/null'], {
      env: { ...env(owner.token), TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    started.push(child)
    const watched = watch(child)
    await untilLine(watched, new RegExp(`^Watching ${path}/plan\\. Ctrl-C stops\\.\\r?$`))
    const appended = await append('# Plan\n\nFour.\n')
    await untilLine(watched, new RegExp(`^\\d{2}:\\d{2}:\\d{2}  ${path}/plan  version ${appended} appended by ${owner.username}\\r?$`))
    // ^C at the terminal: its line discipline sends SIGINT to the command.
    child.stdin?.write('\u0003')
    const exit = await untilExit(watched)
    child.stdin?.end()
    expect(exit, watched.output()).toEqual({ code: 0, signal: null })
    expect(watched.output()).toMatch(/Stopped; resume with --after \d+\.\r?\n/)
  })

  it('reconnects after the connection is cut, from the last event: what happened meanwhile still comes', async () => {
    const proxy = await startProxy(new URL(web.apiUrl))
    try {
      const path = `${owner.username}/notes`
      const { child, watched } = quire(['project', 'watch', path], env(owner.token, { AGENT_SERVICE_BASE_URL: proxy.url }))
      await untilLine(watched, /^Watching /)
      const before = await newestEvent()
      proxy.cut()
      await untilLine(watched, new RegExp(`^Disconnected: .+\\. Reconnecting in 0\\.5 s after event ${before}…$`))
      const meanwhile = await append('# Plan\n\nFive.\n')
      proxy.restore()
      await untilLine(watched, new RegExp(`^Reconnected; resuming after event ${before}\\.$`))
      await untilLine(watched, new RegExp(`  ${path}/plan  version ${meanwhile} appended by ${owner.username}$`))
      const exit = await interrupt(child, watched)
      expect(exit, watched.output()).toEqual({ code: 0, signal: null })
      expect(watched.stdout().trimEnd().split('\n')).toHaveLength(1)
      expect(watched.stderr()).toContain(`Stopped; resume with --after ${await newestEvent()}.`)
    } finally {
      await proxy.close()
    }
  })

  it('a revoked key ends the watch with exit 4 and the usual message', async () => {
    const key = await issueOperatorToken(web.runtime.operator, { email: 'ada@example.com', name: 'watcher' })
    const path = `${owner.username}/notes`
    const { watched } = quire(['project', 'watch', path], env(key.secret))
    await untilLine(watched, /^Watching /)
    await restCall(web, owner.token, 'DELETE', `/api/api-keys/${key.keyId}`)
    // The next answer is the refusal: at the next change, or the next poll at the latest.
    await append('# Plan\n\nSix.\n')
    const exit = await untilExit(watched)
    expect(exit, watched.output()).toEqual({ code: 4, signal: null })
    expect(watched.stderr()).toMatch(/^Watching .+\nerror: .+\nhint: Run `quire login`/)
    expect(watched.stdout()).toBe('')
  })
})
