/**
 * bench/web: the web app's two figures, each beside its baseline in the same run.
 *
 * (a) The page of a pinned public version (`GET {web}/:owner/:project/:slug?version=1`, served
 *     from the render cache) against the API's content read of the same version
 *     (`GET {api}/api/artifacts/:id/content?version=1`), anonymous, both apps in `pnpm start`'s one
 *     process on PostgreSQL, autocannon on 127.0.0.1; rounds alternate API, page, API, …
 *     Both sides are asked as a browser asks (`Accept-Encoding: gzip, deflate, br`), each sending
 *     whatever coding it sends a browser; and once more without Accept-Encoding (plain bytes both
 *     sides), to show what compression changed. Goal: at least 0.6× the API's req/s. The same for
 *     an HTML report's page, which draws it in a frame from the content origin (a capability
 *     minted per request), and for the content origin's answer to that frame (the report itself).
 * (b) The first render of a 1 MiB Markdown document (`bench/web/document.ts`, a new seed each
 *     time) through `renderArtifact`, against markdown-it's own render of it, CPU time of the
 *     rendering thread, the order alternating. Goal: at most 1.5× markdown-it's time.
 *
 *   pnpm bench web [--duration 5] [--connections 50] [--rounds 5] [--pool 10] [--only render|page|"1 KiB"|"64 KiB"]
 *
 * QUIRE_BENCH_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the server.
 */

import { request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { renderArtifact } from '@quire/render'
import { PREVIEW_WINDOW_SECONDS } from '@quire/runtime'
import type autocannon from 'autocannon'
import MarkdownIt from 'markdown-it'
import * as harness from '../harness.ts'
import { withLocalQuire } from '../local-quire.ts'
import { markdownDocument } from './document.ts'

const { duration, connections, rounds, pool, only } = harness.loadOptions(
  'database pool size of the one process serving the API and the web app',
)
const PAGE_TARGET = 0.6
const RENDER_TARGET = 1.5
/** The size of the rendered document, and of the larger one served as a page. */
const RENDER_BYTES = 1024 * 1024
const PAGE_BYTES = 64 * 1024
/** Documents rendered per round in (b): each a first render, on both sides. */
const RENDERS_PER_ROUND = 3
/** Whether an answer was wrong (a missed goal is only shown, as in the other benchmarks): the run then exits 1. */
let failed = false

/** `min–max` of ratios, to show how far a noisy machine moved them. */
function spread(ratios: readonly number[]): string {
  return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`
}

// ---------------------------------------------------------------------------------------------
// (b) The first render of a 1 MiB Markdown document.

/**
 * The baseline: markdown-it with the options our renderer sets (raw HTML on, linkify on,
 * typographer off), and nothing else: no plugins, no highlighting (fences come out escaped), no
 * sanitiser. Its `render` parses and renders, as `renderArtifact` must.
 */
const markdownIt = new MarkdownIt({ html: true, linkify: true, typographer: false })
const BASELINE = 'new MarkdownIt({ html: true, linkify: true, typographer: false }).render(text)'

/**
 * The time `work` took, in ms: CPU time of this thread (the render runs on it from start to end,
 * and what other processes on the machine's two cores do does not count) and wall time.
 */
function timed(work: () => unknown): { cpu: number; wall: number } {
  const cpu = process.threadCpuUsage()
  const wall = performance.now()
  work()
  const used = process.threadCpuUsage(cpu)
  return { cpu: (used.user + used.system) / 1000, wall: performance.now() - wall }
}

/** What `renderArtifact` gave must be the whole document rendered, or the timing means nothing. */
function checkRendered(html: string): void {
  for (const part of [
    'class="hljs language-',
    '<table>',
    'class="task-list-item',
    'class="footnotes"',
    '<details>',
    '<kbd>',
    'class="header-anchor"',
  ])
    if (!html.includes(part)) throw new Error(`renderArtifact's output lacks ${part}`)
}

/** Per document rendered: each side's CPU and wall ms. */
interface RenderFigures {
  baseline: { cpu: number; wall: number }[]
  quire: { cpu: number; wall: number }[]
  codeShare: number
}

function measureRenders(): RenderFigures {
  // Two documents of other seeds first, on both sides: what is measured is a document's first
  // render in a warm process (JIT, grammars compiled), as a server renders a new version.
  for (const warmSeed of [1001, 1002]) {
    const text = markdownDocument(RENDER_BYTES, warmSeed)
    markdownIt.render(text)
    checkRendered(renderArtifact({ type: 'md', content: text }).html.text)
  }
  const figures: RenderFigures = { baseline: [], quire: [], codeShare: 0 }
  for (let i = 0; i < rounds * RENDERS_PER_ROUND; i++) {
    const text = markdownDocument(RENDER_BYTES, i + 1)
    let html = ''
    const baseline = () => timed(() => markdownIt.render(text))
    const quire = () => timed(() => (html = renderArtifact({ type: 'md', content: text }).html.text))
    // The side measured second pays for the garbage the first left: the order alternates.
    if (i % 2 === 0) {
      figures.baseline.push(baseline())
      figures.quire.push(quire())
    } else {
      figures.quire.push(quire())
      figures.baseline.push(baseline())
    }
    checkRendered(html)
    if (i === 0) figures.codeShare = [...text.matchAll(/^```[^\n]*\n[\s\S]*?^```$/gm)].reduce((n, m) => n + m[0].length, 0) / text.length
  }
  return figures
}

// ---------------------------------------------------------------------------------------------
// (a) The page of a pinned public version against the API's read of it.

/** Rows of the HTML report's table: about 16 KiB, a generated weekly report as an agent writes one. */
const REPORT_ROWS = 200

/** An HTML report: styles, a summary, a table of `rows` services, and a script that totals it. */
function htmlReport(rows: number): string {
  const body = Array.from(
    { length: rows },
    (_, i) => `<tr><td>service-${i}</td><td>${(i * 7919) % 100000}</td><td>${(99 + (i % 10) / 10).toFixed(1)}%</td></tr>`,
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weekly report</title>
<style>body{font:15px system-ui;margin:24px} table{border-collapse:collapse} td,th{padding:4px 8px;border-bottom:1px solid #ddd}</style>
</head><body><h1>Weekly report</h1><p id="total"></p>
<table><thead><tr><th>Service</th><th>Requests</th><th>Availability</th></tr></thead><tbody>
${body.join('\n')}
</tbody></table>
<script>document.getElementById('total').textContent = [...document.querySelectorAll('tbody tr')].length + ' services'</script>
</body></html>
`
}

/** Seconds to wait so that a case of `seconds` ends in the capability window it starts in (0 when it fits). */
function windowWait(seconds: number): number {
  const left = PREVIEW_WINDOW_SECONDS - ((Date.now() / 1000) % PREVIEW_WINDOW_SECONDS)
  return left >= Math.min(seconds, PREVIEW_WINDOW_SECONDS - 1) ? 0 : left + 1
}

/** The artifact read's `previewUrl`: the content origin's capability for the latest version. */
async function previewOf(url: string, token: string): Promise<string> {
  const read = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as { previewUrl?: string }
  if (!read.previewUrl) throw new Error(`GET ${url} answered no previewUrl`)
  return read.previewUrl
}

/** What a browser sends (Chromium, Firefox and Safari alike, over plain HTTP): both sides get it. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br'

/** One answer as it came over the wire: its coding and its bytes undecoded. */
interface Answer {
  readonly encoding: string | null
  readonly bytes: Buffer
  /** The bytes decoded by their coding: what the reader gets. */
  readonly text: string
}

/** GET `url` with `headers`, nothing decoded by the client. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * Sends `url` twice, anonymous, with `headers`; its answer, after checking it is a 200 whose
 * decoded body carries `mark`, the same bytes both times.
 */
async function answerOf(url: string, headers: Record<string, string>, mark: string): Promise<Answer> {
  const [first, second] = await Promise.all([get(url, headers), get(url, headers)])
  const encoding = typeof first.headers['content-encoding'] === 'string' ? first.headers['content-encoding'] : null
  const decode = encoding === 'br' ? brotliDecompressSync : encoding === 'gzip' ? gunzipSync : encoding === null ? (b: Buffer) => b : null
  if (decode === null) throw new Error(`GET ${url} answered in ${encoding}, which this benchmark does not decode`)
  const text = decode(first.bytes).toString('utf8')
  if (first.status !== 200 || !text.includes(mark))
    throw new Error(`GET ${url} answered ${first.status}, not the document:\n${text.slice(0, 600)}`)
  if (!second.bytes.equals(first.bytes)) throw new Error(`GET ${url} answered two different bodies; the load could not check them`)
  return { encoding, bytes: first.bytes, text }
}

/** One side of a case: what autocannon loads, and the answer every request must get. */
interface Target {
  readonly url: string
  readonly answer: Answer
}

/** The part of autocannon's queue of requests in flight that `byteExact` replaces (lib/pipelinedRequestsQueue.js). */
interface InFlight {
  body: string
  chunks?: Buffer[]
}
interface RequestQueue {
  peek(): InFlight | undefined
  addBody(data: Buffer): void
  terminateRequest(): InFlight | undefined
}

const SAME = 'same bytes'

/**
 * Every answer's body compared, byte for byte, with `expected` (the answer checked above). autocannon
 * decodes each body chunk as UTF-8 text and appends it to a string: that mangles compressed bytes,
 * and decoding them cost the load generator (on the same two cores as the server) some 440 µs an
 * answer against 110–190 µs for a text body, measured here. So on BOTH sides the body is kept as
 * bytes and compared whole when the answer ends; autocannon counts a difference as a mismatch
 * through `verifyBody`.
 */
function byteExact(expected: Buffer): Pick<autocannon.Options, 'setupClient' | 'verifyBody'> {
  return {
    setupClient(client) {
      const queue = (client as unknown as { pipelinedRequests?: RequestQueue }).pipelinedRequests
      if (queue === undefined || typeof queue.addBody !== 'function' || typeof queue.terminateRequest !== 'function')
        throw new Error("autocannon's client has no queue of requests in flight: the body check cannot be set up")
      queue.addBody = (data) => {
        const request = queue.peek()
        if (request === undefined) return
        if (request.chunks === undefined) request.chunks = [data]
        else request.chunks.push(data)
      }
      const terminate = queue.terminateRequest.bind(queue)
      queue.terminateRequest = () => {
        const request = terminate()
        if (request) request.body = request.chunks !== undefined && Buffer.concat(request.chunks).equals(expected) ? SAME : 'other bytes'
        return request
      }
    },
    verifyBody: (body) => body === SAME,
  }
}

/** autocannon's options for `target`, asked with `headers`. */
function loadOf(target: Target, headers: Record<string, string>): autocannon.Options {
  return { connections, url: target.url, headers, ...byteExact(target.answer.bytes) }
}

/** The size on the wire, with the coding when there is one. */
function sizeOf(answer: Answer): string {
  const kib = (n: number) => (n / 1024).toFixed(1)
  return answer.encoding === null
    ? `${kib(answer.bytes.length)}`
    : `${kib(answer.bytes.length)} ${answer.encoding} (${kib(Buffer.byteLength(answer.text))})`
}

async function measurePages(chosen: readonly PageCase[]): Promise<string[][]> {
  return withLocalQuire('bench/web', { pool, readyPath: '/health' }, async ({ api, web, content, server, fixtures }) => {
    // The larger document: a public artifact made over REST with the owner's key.
    const headers = { authorization: `Bearer ${fixtures.token}`, 'content-type': 'application/json' }
    const seeded = (await (await fetch(`${api}/api/artifacts/${fixtures.publicId}`, { headers })).json()) as { ownerUsername: string }
    const larger = await fetch(`${api}/api/artifacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        ownerUsername: seeded.ownerUsername,
        projectSlug: 'bench',
        slug: 'notes',
        type: 'md',
        title: 'Notes',
        content: markdownDocument(PAGE_BYTES, 7),
        changelog: '',
        access: { publicView: true, publicEdit: false },
      }),
    })
    if (larger.status !== 201) throw new Error(`creating the larger document answered ${larger.status}: ${await larger.text()}`)
    const largerId = ((await larger.json()) as { id: string }).id
    const report = await fetch(`${api}/api/artifacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        ownerUsername: seeded.ownerUsername,
        projectSlug: 'bench',
        slug: 'report',
        type: 'html',
        title: 'Report',
        content: htmlReport(REPORT_ROWS),
        changelog: '',
        access: { publicView: true, publicEdit: false },
      }),
    })
    if (report.status !== 201) throw new Error(`creating the HTML report answered ${report.status}: ${await report.text()}`)
    const reportId = ((await report.json()) as { id: string }).id

    const rows: string[][] = []
    for (const c of chosen) {
      const id = c.document === 'seed' ? fixtures.publicId : c.document === 'larger' ? largerId : reportId
      const slug = c.document === 'seed' ? 'public' : c.document === 'larger' ? 'notes' : 'report'
      const headers: Record<string, string> = c.browser ? { 'accept-encoding': BROWSER_ACCEPT_ENCODING } : {}
      // The pages of a drawn report hold a capability, another one every window: a case starts
      // early enough in a window to end in it, so every answer is the one checked.
      if (c.document === 'report') await new Promise((done) => setTimeout(done, 1000 * windowWait(rounds * 2 * duration + 20)))
      const readUrl = `${api}/api/artifacts/${id}/content?version=1`
      const pageUrl =
        c.side === 'page'
          ? `${web}/${seeded.ownerUsername}/bench/${slug}?version=1`
          : await previewOf(`${api}/api/artifacts/${id}`, fixtures.token)
      if (c.side === 'content' && !pageUrl.startsWith(`${content}/d/`)) throw new Error(`the report's previewUrl is ${pageUrl}`)
      const mark =
        c.side === 'content'
          ? '<h1>Weekly report</h1>'
          : c.document === 'report'
            ? 'class="rendered-frame rendered-html"'
            : 'class="document document-md"'
      const read: Target = { url: readUrl, answer: await answerOf(readUrl, headers, '"versionNumber":1') }
      const page: Target = { url: pageUrl, answer: await answerOf(pageUrl, headers, mark) }
      for (const side of [read, page]) await harness.warm(loadOf(side, headers))
      const measure = (side: Target) => () => harness.load(server, duration, loadOf(side, headers))
      const sides = await harness.alternate(rounds, measure(read), measure(page))
      const r = harness.medians(sides.baseline)
      const p = harness.medians(sides.quire)
      const ratio = p.rps / r.rps
      const perRound = sides.quire.map((x, i) => x.rps / (sides.baseline[i]?.rps ?? 1))
      const badCount = `${harness.failures(sides.baseline)} / ${harness.failures(sides.quire)}`
      failed ||= harness.failures(sides.baseline) + harness.failures(sides.quire) > 0
      rows.push([
        c.name,
        `${sizeOf(read.answer)} / ${sizeOf(page.answer)} KiB`,
        ...harness.sideCells(r),
        ...harness.sideCells(p),
        ...(c.browser ? harness.ratioCells(ratio, PAGE_TARGET) : harness.ratioCells(ratio, null)),
        spread(perRound),
        badCount,
      ])
      process.stderr.write(`${c.name}: API ${r.rps.toFixed(0)} req/s, page ${p.rps.toFixed(0)} req/s (${ratio.toFixed(2)}×)\n`)
    }
    return rows
  })
}

// ---------------------------------------------------------------------------------------------

interface PageCase {
  readonly name: string
  readonly document: 'seed' | 'larger' | 'report'
  /** The web app's page, or the content origin's answer for the frame the page holds (the report itself). */
  readonly side: 'page' | 'content'
  /** Asked as a browser asks (Accept-Encoding): the case the target is for; else plain bytes both sides. */
  readonly browser: boolean
}

const pageCases: PageCase[] = [
  { name: 'page: pinned public version, 1 KiB', document: 'seed', side: 'page', browser: true },
  { name: 'page: pinned public version, 64 KiB', document: 'larger', side: 'page', browser: true },
  { name: 'page: pinned public version, 1 KiB, no Accept-Encoding', document: 'seed', side: 'page', browser: false },
  { name: 'page: pinned public version, 64 KiB, no Accept-Encoding', document: 'larger', side: 'page', browser: false },
  { name: 'page: pinned public HTML report, drawn in a frame', document: 'report', side: 'page', browser: true },
  { name: 'page frame: the HTML report from the content origin', document: 'report', side: 'content', browser: true },
]
const renderCase = 'render: first render of 1 MiB Markdown'
const chosenPages = pageCases.filter((c) => !only || c.name.includes(only))
const renderChosen = !only || renderCase.includes(only)
if (chosenPages.length === 0 && !renderChosen) {
  process.stderr.write(`No case's name contains ${JSON.stringify(only)}.\n`)
  process.exit(2)
}

// The render first, while no server shares the cores with it.
const renders = renderChosen ? measureRenders() : null
const pageRows = chosenPages.length > 0 ? await measurePages(chosenPages) : []

console.log(`\nbench/web: ${rounds} alternating rounds (medians), node ${process.version}`)
if (renders) {
  const ratios = (clock: 'cpu' | 'wall') => renders.quire.map((q, i) => q[clock] / (renders.baseline[i]?.[clock] ?? Number.NaN))
  const ms = (side: { cpu: number; wall: number }[], clock: 'cpu' | 'wall') => harness.median(side.map((x) => x[clock])).toFixed(1)
  const ratio = harness.median(ratios('cpu'))
  console.log(
    `\n(b) First render of a 1 MiB Markdown document (${(100 * renders.codeShare).toFixed(0)}% of it fenced code), ` +
      `${renders.quire.length} documents of new seeds (${RENDERS_PER_ROUND} a round), after 2 warm-up documents:\n`,
  )
  console.log(
    harness.markdownTable(
      ['case', 'markdown-it ms', 'renderArtifact ms', 'ratio', 'spread', 'target', 'met', 'wall ms: markdown-it / ours', 'wall ratio'],
      [
        [
          renderCase,
          ms(renders.baseline, 'cpu'),
          ms(renders.quire, 'cpu'),
          `${ratio.toFixed(2)}×`,
          spread(ratios('cpu')),
          `≤ ${RENDER_TARGET}×`,
          ratio <= RENDER_TARGET ? 'yes' : 'NO',
          `${ms(renders.baseline, 'wall')} / ${ms(renders.quire, 'wall')}`,
          `${harness.median(ratios('wall')).toFixed(2)}×`,
        ],
      ],
    ),
  )
  console.log(
    `\nBaseline: ${BASELINE}: markdown-it 14 with our options and nothing else (no plugins, no highlighting, no sanitiser).\n` +
      'renderArtifact: the same parse plus task lists, footnotes, heading anchors, highlight.js on fences (up to its budget),\n' +
      'the link policy, sanitize-html on the HTML the document wrote, headings and description.\n' +
      'ms: CPU time of the thread that renders (user + system), median over the documents; ratio: median of the per-document\n' +
      "ratios, spread their min–max. Wall time is shown too: other processes on this machine's two cores inflate it.",
  )
}
if (pageRows.length > 0) {
  console.log(
    `\n(a) Page of a pinned public version against the API's content read of it: ${connections} connections, ` +
      `${duration} s per side and round, one server process (serve-local.ts), pool ${pool}, PostgreSQL:\n`,
  )
  console.log(
    harness.markdownTable(
      [
        'case',
        'body API / page',
        'API req/s',
        'API p99',
        'API CPU µs',
        'page req/s',
        'page p99',
        'page CPU µs',
        'page/API',
        'target',
        'met',
        'spread',
        'bad API / page',
      ],
      pageRows,
    ),
  )
  console.log(
    '\nAPI: GET /api/artifacts/:id/content?version=1; page: GET /:owner/:project/:slug?version=1; both anonymous, with\n' +
      `Accept-Encoding: ${BROWSER_ACCEPT_ENCODING} (as a browser sends it) unless the case says none. body: KiB on the wire,\n` +
      'with the coding and the decoded size when compressed. The target is for the cases asked as a browser asks.\n' +
      'CPU µs: CPU time per request in the server process + in its PostgreSQL backends (from /proc). spread: min–max of the\n' +
      'per-round ratios. bad: socket errors, timeouts, non-2xx and answers differing from the checked one; must be 0.',
  )
}
if (failed) process.exitCode = 1
