/**
 * HTML, SVG and Mermaid artifacts as their authors meant them, in a real Chromium: drawn on the
 * content origin (another site than the web app), in a frame sandboxed to scripts alone, or as an
 * image. A document's own script runs, in its frame, and reaches nothing else: not the network
 * (a server of a third site records every connection it is offered, and the web app every probe
 * path it is asked for), not the reader's cookies or storage, not the page around it, which it
 * can neither navigate nor pop windows from; it cannot even take its own frame elsewhere. An SVG runs no script, shown or opened on its own; a
 * Mermaid diagram is drawn with Mermaid's strict level (no click callbacks, no script links, labels
 * are text) and shows its source when it does not parse. The capabilities the documents are
 * addressed by expire, cannot be altered and die with their artifact; the page fits each frame to
 * the height its document reports, within bounds, and a page opened again (revalidated) still
 * frames its document. Last, the pages that embed documents are drawn whole at desktop and phone
 * sizes and pass axe, frames included. (Their screenshots are `pnpm screenshots`'s, from the page
 * templates: artifact-html, -svg, -mermaid and -markdown-diagram.)
 *
 * Execution is detected, not assumed absent: `__xss(what)` is a binding the browser exposes to
 * every frame and document (shown to be there), dialogs and popups count too, and each probe is
 * shown to fire by opening the same document with the CSP bypassed, where it does reach out.
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import { testEngine } from '@quire/testing/test-database'
import { until } from '@quire/testing/waits'
import type { Browser, BrowserContext, BrowserContextOptions, Frame, Locator, Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserTimeout, freePort, launchChromium, sessionSecretIn, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { type Author, author } from './mcp-helper.ts'

const OWNER_EMAIL = 'rendered.owner@example.com'
const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 390, height: 844 }
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** A request a server received: `METHOD path`, and the headers that would give something away. */
interface Received {
  readonly line: string
  readonly referer: string | undefined
  readonly cookie: string | undefined
}

/**
 * A server of a third site (127.0.0.2: neither the web app's 127.0.0.1 nor the content origin's
 * localhost), as an attacker's would be: it records every connection and request it receives.
 */
interface Outside {
  readonly url: string
  readonly received: Received[]
  connections: number
  close(): Promise<void>
}

const receivedOf = (line: string, headers: IncomingHttpHeaders): Received => ({ line, referer: headers.referer, cookie: headers.cookie })

async function startOutside(): Promise<Outside> {
  const port = await freePort()
  const server = createServer((request, response) => {
    outside.received.push(receivedOf(`${request.method} ${request.url}`, request.headers))
    response.setHeader('access-control-allow-origin', '*')
    response.end('recorded')
  })
  server.on('upgrade', (request, socket: Socket) => {
    outside.received.push(receivedOf(`UPGRADE ${request.url}`, request.headers))
    socket.destroy()
  })
  server.on('connection', () => {
    outside.connections++
  })
  const outside: Outside = {
    url: `http://127.0.0.2:${port}`,
    received: [],
    connections: 0,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
  await new Promise<void>((done) => server.listen(port, '127.0.0.2', done))
  return outside
}

/** A browser context, and whatever its pages did that no document may: script run, a dialog, a popup. */
interface Reader {
  readonly context: BrowserContext
  /** `__xss(what)` calls, from any frame of any page, with the frame's address. */
  readonly ran: string[]
  /** Dialogs and popups, from any page. */
  readonly opened: string[]
}

let web: TestWeb
let contentUrl: string
let outside: Outside | undefined
let writer: Author
let browser: Browser | undefined
/** Signed in, every policy as served: what every check below is made in. */
let reader: Reader
/** The same session with every CSP bypassed: the controls (each probe fires there) and axe, injected as a script. */
let bypassing: Reader
/** The web app's requests for a probe path (`/xss-probe-…`), as its server received them. */
const webProbes: Received[] = []

async function newReader(options: BrowserContextOptions): Promise<Reader> {
  const context = await (browser as Browser).newContext(options)
  const found: Reader = { context, ran: [], opened: [] }
  await context.exposeBinding('__xss', (source, what: unknown) => {
    found.ran.push(`${String(what)} in ${source.frame.url()}`)
  })
  context.on('page', (page) => {
    page.on('dialog', (dialog) => {
      found.opened.push(`a ${dialog.type()} dialog: ${dialog.message()}`)
      void dialog.dismiss().catch(() => {})
    })
    page.on('popup', (popup) => found.opened.push(`a popup: ${popup.url()}`))
  })
  return found
}

beforeAll(async () => {
  web = await startTestWeb({ content: true, api: true })
  contentUrl = web.contentUrl as string
  // The web app answers no WebSocket: a handshake that reaches it is recorded and its socket closed.
  expect(web.app.server.listenerCount('upgrade')).toBe(0)
  web.app.server.prependListener('request', (request) => {
    if (request.url?.startsWith('/xss-probe')) webProbes.push(receivedOf(`${request.method} ${request.url}`, request.headers))
  })
  web.app.server.on('upgrade', (request, socket: Socket) => {
    webProbes.push(receivedOf(`UPGRADE ${request.url}`, request.headers))
    socket.destroy()
  })
  outside = await startOutside()
  writer = await author(web, OWNER_EMAIL)
  browser = await launchChromium()
  reader = await newReader({ viewport: DESKTOP })
  const signIn = await reader.context.newPage()
  await signInWithBrowser(signIn, web, OWNER_EMAIL)
  await signIn.close()
  bypassing = await newReader({ viewport: DESKTOP, bypassCSP: true, storageState: await reader.context.storageState() })
}, browserTimeout())
afterAll(async () => {
  try {
    await browser?.close()
  } finally {
    try {
      await outside?.close()
    } finally {
      await web?.close()
    }
  }
})

/** A new artifact of `type` in the writer's `notes` (private: the signed-in reader is its owner); its id and page. */
async function artifact(type: 'html' | 'svg' | 'mermaid' | 'md', slug: string, content: string, title = slug) {
  const created = await writer.api('POST', '/api/artifacts', {
    ownerUsername: writer.owner.username,
    projectSlug: 'notes',
    slug,
    type,
    title,
    content,
    changelog: 'First version.',
    access: { publicView: false, publicEdit: false },
  })
  return { id: created.id as string, path: `/${writer.owner.username}/notes/${slug}` }
}

/** Opens a page (a path of the web app, or a full URL) in `who`'s context, runs `use`, and closes the page whatever happens. */
async function onPage<T>(who: Reader, path: string, use: (page: Page) => Promise<T>): Promise<T> {
  const page = await who.context.newPage()
  try {
    const response = await page.goto(path.startsWith('http') ? path : `${web.url}${path}`)
    expect(response?.status(), `the status of ${path}`).toBe(200)
    return await use(page)
  } finally {
    await page.close()
  }
}

/** The document in a frame element of the page, once loaded from the content origin (scrolled to first: frames load lazily). */
async function frameIn(element: Locator): Promise<Frame> {
  await element.scrollIntoViewIfNeeded()
  const frame = await (await element.elementHandle())?.contentFrame()
  if (!frame) throw new Error('the frame element has no frame')
  // Its document, or the browser's error page (a policy refused it): either ends the wait.
  await frame.waitForURL((url) => url.href.startsWith(`${contentUrl}/d/`) || url.protocol === 'chrome-error:')
  if (!frame.url().startsWith(`${contentUrl}/d/`)) throw new Error(`the frame did not load its document: it shows ${frame.url()}`)
  await frame.waitForLoadState('load')
  return frame
}

/** The frames of a page whose documents come from the content origin. */
const contentFrames = (page: Page) => page.frames().filter((frame) => frame.url().startsWith(`${contentUrl}/d/`))

/** A diagram frame's document once Mermaid is done: drawn, or showing why not. */
async function drawnDiagram(element: Locator): Promise<Frame> {
  const frame = await frameIn(element)
  await frame.locator('#diagram svg, #diagram .diagram-error').first().waitFor()
  return frame
}

/** A frame element's height on the page, in CSS pixels. */
const heightOf = (element: Locator) => element.evaluate((frame) => frame.getBoundingClientRect().height)

/** The height the page's stylesheet gives a frame of `kind` before its document says anything. */
const unfittedHeight = (page: Page, kind: 'html' | 'diagram') =>
  page.evaluate((kind) => {
    const probe = document.createElement('iframe')
    probe.className = `rendered-frame rendered-${kind}`
    document.body.append(probe)
    const height = probe.getBoundingClientRect().height
    probe.remove()
    return height
  }, kind)

/** Waits until `element`'s height `fits` and has not changed for three polls in a row (fitted to what its document last reported). */
async function settledHeight(element: Locator, awaited: string, fits: (height: number) => boolean): Promise<number> {
  let last = -1
  let same = 0
  return until(
    () => `${awaited} (last height ${last})`,
    async () => {
      const height = await heightOf(element)
      same = height === last ? same + 1 : 0
      last = height
      return same >= 3 && fits(height) ? height : undefined
    },
  )
}

// ---------------------------------------------------------------------------------------------
// The documents
// ---------------------------------------------------------------------------------------------

/** What an HTML document tries, for each way it could reach a server: `<name>-<target>`. */
const networkProbes = ['fetch', 'xhr', 'websocket', 'beacon', 'image', 'prefetch', 'form'] as const
/** The probes the content origin's CSP stops (and reports); a form is stopped by the sandbox, which lacks `allow-forms`. */
const cspProbes = networkProbes.filter((probe) => probe !== 'form')

/** An HTML document that runs its own script and an inline handler, then tries every way out to `targets`. */
function networkDocument(targets: { web: string; outside: string }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Network probes</title></head>
<body>
<h1>Network probes</h1>
<p>Inline script: <output id="inline-script">not run</output></p>
<p>Inline handler: <output id="inline-handler">not run</output></p>
<img alt="" src="data:image/png;base64,AAAA" onerror="document.getElementById('inline-handler').textContent = 'ran'">
<ul id="probes"></ul>
<ul id="violations"></ul>
<form id="form-web" method="post" action="${targets.web}/xss-probe-form-web"><input name="a" value="1"></form>
<form id="form-outside" method="post" action="${targets.outside}/xss-probe-form-outside"><input name="a" value="1"></form>
<script>
document.getElementById('inline-script').textContent = 'ran'
addEventListener('securitypolicyviolation', (event) => {
  const item = document.createElement('li')
  item.textContent = event.effectiveDirective + ' ' + event.blockedURI
  document.getElementById('violations').append(item)
})
const probes = {
  fetch: (url) => { fetch(url, { method: 'POST', mode: 'no-cors', body: 'x' }).catch(() => {}) },
  xhr: (url) => { const request = new XMLHttpRequest(); request.open('POST', url); request.send('x') },
  websocket: (url) => { new WebSocket(url.replace(/^http/, 'ws')) },
  beacon: (url) => navigator.sendBeacon(url, 'x'),
  image: (url) => { new Image().src = url },
  prefetch: (url) => { const link = document.createElement('link'); link.rel = 'prefetch'; link.href = url; document.head.append(link) },
  form: (_url, target) => { document.getElementById('form-' + target).submit() },
}
for (const [target, base] of Object.entries(${JSON.stringify(targets)}))
  for (const [name, probe] of Object.entries(probes)) {
    const item = document.createElement('li')
    item.dataset.probe = name + '-' + target
    try {
      probe(base + '/xss-probe-' + name + '-' + target, target)
      item.textContent = 'tried'
    } catch (error) {
      item.textContent = 'threw ' + error.name
    }
    document.getElementById('probes').append(item)
  }
document.body.dataset.done = 'true'
</script>
</body>
</html>
`
}

/** What the escape document reaches for, each recorded in its own DOM as `gave: <value>` or `threw <error>`. */
const escapes = [
  'cookie',
  'local-storage',
  'session-storage',
  'indexed-db',
  'parent-document',
  'top-document',
  'parent-location',
  'parent-storage',
  'window-open',
  'blank-link',
  'top-location',
  'top-location-outside',
  'top-link',
] as const

/** An HTML document that reaches for the reader's cookies and storage, the page around it, the top window, popups. */
function escapeDocument(targets: { web: string; outside: string }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Escapes</title></head>
<body>
<h1>Escapes</h1>
<dl id="escapes"></dl>
<script>
const attempt = (name, reach) => {
  const term = document.createElement('dt')
  term.textContent = name
  const outcome = document.createElement('dd')
  outcome.id = name
  try {
    outcome.textContent = 'gave: ' + String(reach())
  } catch (error) {
    outcome.textContent = 'threw ' + error.name
  }
  document.getElementById('escapes').append(term, outcome)
}
const link = (href, target) => {
  const a = document.createElement('a')
  a.href = href
  a.target = target
  a.textContent = target
  document.body.append(a)
  a.click()
  return 'clicked'
}
attempt('cookie', () => document.cookie)
attempt('local-storage', () => JSON.stringify(Object.entries(localStorage)))
attempt('session-storage', () => JSON.stringify(Object.entries(sessionStorage)))
attempt('indexed-db', () => indexedDB.open('quire') && 'opened')
attempt('parent-document', () => window.parent.document.cookie)
attempt('top-document', () => window.top.document.title)
attempt('parent-location', () => window.parent.location.href)
attempt('parent-storage', () => window.parent.localStorage.length)
attempt('window-open', () => window.open('${targets.outside}/xss-probe-window-open'))
attempt('blank-link', () => link('${targets.outside}/xss-probe-blank-link', '_blank'))
attempt('top-location', () => { window.top.location = '${targets.web}/xss-probe-top-location'; return 'assigned' })
attempt('top-location-outside', () => { window.top.location.href = '${targets.outside}/xss-probe-top-location'; return 'assigned' })
attempt('top-link', () => link('${targets.outside}/xss-probe-top-link', '_top'))
document.body.dataset.done = 'true'
</script>
</body>
</html>
`
}

/** SVGs that would run script if anything let them, and fetch from `outside`; each draws something (the image is shown). */
function svgDocuments(outsideUrl: string): Record<string, string> {
  return {
    'svg-scripts': `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 60" width="120" height="60" onload="__xss('svg onload')">
  <script>__xss('svg script')</script>
  <style>@import url("${outsideUrl}/xss-probe-svg-import");</style>
  <rect width="120" height="60" fill="#3b5bdb"/>
  <rect width="10" height="10" fill="#fff"><set attributeName="fill" to="#000" begin="0s" onbegin="__xss('svg onbegin')"/></rect>
  <image href="${outsideUrl}/xss-probe-svg-image" width="10" height="10"/>
  <use href="${outsideUrl}/xss-probe-svg-use#shape"/>
</svg>
`,
    'svg-foreign-object': `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 60" width="120" height="60">
  <rect width="120" height="60" fill="#2f9e44"/>
  <foreignObject x="0" y="0" width="120" height="60">
    <body xmlns="http://www.w3.org/1999/xhtml">
      <script>__xss('foreignObject script')</script>
      <img src="data:image/png;base64,AAAA" onerror="__xss('foreignObject handler')"/>
      <iframe srcdoc="&lt;script&gt;parent.__xss('foreignObject frame')&lt;/script&gt;"></iframe>
    </body>
  </foreignObject>
</svg>
`,
    'svg-links': `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 120 60" width="120" height="60">
  <rect width="120" height="60" fill="#e8590c"/>
  <a href="javascript:__xss('svg link')"><rect id="link" x="10" y="10" width="40" height="40" fill="#fff"/></a>
  <a xlink:href="javascript:__xss('svg xlink')"><rect id="xlink" x="70" y="10" width="40" height="40" fill="#fff"/></a>
</svg>
`,
  }
}

/** A Mermaid diagram that asks for callbacks, a call, script links and an HTML label: Mermaid's strict level gives none. */
const trappedDiagram = `flowchart LR
  A[Callback] --> B[Call]
  B --> C[Script link]
  C --> D["<img src=x onerror=__xss('label')>"]
  D --> E[Alert]
  click A __xss "A callback"
  click B call __xss("call")
  click C href "javascript:__xss('href')"
  click E call alert("alert")
`

/** One diagram of each kind, and the role Mermaid gives its drawing. */
const diagramKinds = [
  {
    kind: 'flowchart',
    role: 'flowchart-v2',
    source: 'flowchart TD\n  Idea --> Draft --> Review --> Published\n  Review -- changes --> Draft\n',
  },
  { kind: 'sequence', role: 'sequence', source: 'sequenceDiagram\n  Writer->>Quire: Publish a version\n  Quire-->>Reader: Notify\n' },
  {
    kind: 'class',
    role: 'classDiagram',
    source: 'classDiagram\n  class Artifact {\n    +String title\n    +publish()\n  }\n  Artifact <|-- Report\n',
  },
  {
    kind: 'gantt',
    role: 'gantt',
    source:
      'gantt\n  title Release 2.4\n  dateFormat YYYY-MM-DD\n  section Build\n  Code freeze :a1, 2025-04-01, 3d\n  Staging :after a1, 2d\n',
  },
  { kind: 'pie', role: 'pie', source: 'pie title Where the week went\n  "Reviews" : 40\n  "Writing" : 45\n  "Meetings" : 15\n' },
] as const

/** The documents drawn at desktop and phone sizes and checked with axe: what a team would publish. */
const showcase = {
  html: {
    slug: 'service-report',
    title: 'Service report, week 14',
    content: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Service report, week 14</title>
<style>
  :root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; }
  body { margin: 0; padding: 20px; }
  h1 { font-size: 1.35rem; margin: 0 0 4px; }
  .sub { color: #57606a; margin: 0 0 18px; }
  .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin: 0 0 22px; padding: 0; list-style: none; }
  .card { border: 1px solid #d0d7de; border-radius: 10px; padding: 12px 14px; }
  .card .label { color: #57606a; font-size: 0.85rem; }
  .card .value { font-size: 1.6rem; font-weight: 650; margin-top: 2px; }
  .good { color: #1a7f37; }
  .watch { color: #9a6700; }
  .table { overflow-x: auto; }
  table { width: 100%; border-collapse: collapse; font-size: 0.95rem; }
  caption { text-align: left; font-weight: 600; margin-bottom: 8px; }
  th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid #d0d7de; white-space: nowrap; }
  th { background: #f6f8fa; font-weight: 600; }
  td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
  .meter { display: inline-block; width: 80px; height: 8px; border-radius: 4px; background: #eaeef2; vertical-align: middle; margin-right: 8px; }
  .meter span { display: block; height: 100%; border-radius: 4px; background: #2da44e; }
  .meter span.high { background: #bf8700; }
</style>
</head>
<body>
<article>
<h1>Service report, week 14</h1>
<p class="sub">From the monitoring export, Monday 06:00 UTC. Error budget: 0.1% of requests.</p>
<ul class="cards" aria-label="Summary">
  <li class="card"><div class="label">Availability</div><div class="value good">99.97%</div></li>
  <li class="card"><div class="label">p95 latency</div><div class="value">182 ms</div></li>
  <li class="card"><div class="label">Incidents</div><div class="value watch">2</div></li>
  <li class="card"><div class="label">Deploys</div><div class="value">14</div></li>
</ul>
<div class="table">
<table id="services">
  <caption>Services by error rate</caption>
  <thead><tr><th scope="col">Service</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Errors</th><th scope="col">Error rate</th></tr></thead>
  <tbody></tbody>
</table>
</div>
</article>
<script>
const services = [
  ['api', 1843200, 312],
  ['web', 922140, 41],
  ['search', 402118, 97],
  ['webhooks', 120388, 6],
  ['auth', 311920, 12],
]
const body = document.querySelector('#services tbody')
for (const [name, requests, errors] of services.sort((a, b) => b[2] / b[1] - a[2] / a[1])) {
  const rate = (errors / requests) * 100
  const row = body.insertRow()
  row.insertCell().textContent = name
  const count = row.insertCell()
  count.className = 'number'
  count.textContent = requests.toLocaleString('en')
  const failed = row.insertCell()
  failed.className = 'number'
  failed.textContent = errors.toLocaleString('en')
  const meter = document.createElement('span')
  meter.className = 'meter'
  const fill = document.createElement('span')
  fill.style.width = Math.min(100, rate * 1000) + '%'
  if (rate > 0.015) fill.className = 'high'
  meter.append(fill)
  row.insertCell().append(meter, rate.toFixed(3) + '%')
}
document.body.dataset.filled = String(services.length)
</script>
</body>
</html>
`,
  },
  svg: {
    slug: 'deploys-chart',
    title: 'Deploys per week',
    content: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 360" width="640" height="360" role="img" aria-labelledby="title">
  <title id="title">Deploys per week, weeks 9 to 14</title>
  <rect width="640" height="360" fill="#ffffff"/>
  <text x="32" y="40" font-family="system-ui, sans-serif" font-size="20" font-weight="600" fill="#1f2328">Deploys per week</text>
  <g font-family="system-ui, sans-serif" font-size="13" fill="#57606a">
    <line x1="60" y1="310" x2="610" y2="310" stroke="#d0d7de"/>
    <line x1="60" y1="230" x2="610" y2="230" stroke="#eaeef2"/>
    <line x1="60" y1="150" x2="610" y2="150" stroke="#eaeef2"/>
    <line x1="60" y1="70" x2="610" y2="70" stroke="#eaeef2"/>
    <text x="48" y="314" text-anchor="end">0</text>
    <text x="48" y="234" text-anchor="end">5</text>
    <text x="48" y="154" text-anchor="end">10</text>
    <text x="48" y="74" text-anchor="end">15</text>
  </g>
  <g fill="#3b5bdb">
    <rect x="85" y="198" width="56" height="112" rx="4"/>
    <rect x="175" y="166" width="56" height="144" rx="4"/>
    <rect x="265" y="230" width="56" height="80" rx="4"/>
    <rect x="355" y="150" width="56" height="160" rx="4"/>
    <rect x="445" y="118" width="56" height="192" rx="4"/>
    <rect x="535" y="86" width="56" height="224" rx="4" fill="#2f9e44"/>
  </g>
  <g font-family="system-ui, sans-serif" font-size="13" fill="#1f2328" text-anchor="middle">
    <text x="113" y="330">W9</text><text x="203" y="330">W10</text><text x="293" y="330">W11</text>
    <text x="383" y="330">W12</text><text x="473" y="330">W13</text><text x="563" y="330">W14</text>
    <text x="113" y="190">7</text><text x="203" y="158">9</text><text x="293" y="222">5</text>
    <text x="383" y="142">10</text><text x="473" y="110">12</text><text x="563" y="78">14</text>
  </g>
</svg>
`,
  },
  mermaid: {
    slug: 'sign-in-flow',
    title: 'Sign-in flow',
    content: `sequenceDiagram
  participant B as Browser
  participant W as Web app
  participant P as Identity provider
  B->>W: GET /login
  W-->>B: Redirect to the provider
  B->>P: Sign in
  P-->>B: Redirect back with a code
  B->>W: GET /auth/callback?code=…
  W->>P: Exchange the code
  P-->>W: ID token
  W-->>B: Session cookie, back to the page
`,
  },
  markdown: {
    slug: 'incident-response',
    title: 'Incident response',
    content: `# Incident response

When an alert fires, whoever is on call follows this path. The incident channel is the one place
for updates; the status page follows it.

\`\`\`mermaid
flowchart LR
  Alert[Alert fires] --> Ack{Acknowledged in 5 min?}
  Ack -- yes --> Triage[Set the severity]
  Ack -- no --> Escalate[Page the secondary]
  Escalate --> Triage
  Triage --> Mitigate[Mitigate]
  Mitigate --> Review[Review within 2 days]
\`\`\`

## Severities

| Severity | Meaning | Update every |
|:---------|:--------|-------------:|
| SEV1 | Customers cannot work | 30 min |
| SEV2 | A feature is down | 2 h |
| SEV3 | Degraded, with a workaround | 1 day |
`,
  },
} as const

// ---------------------------------------------------------------------------------------------

describe(`rendered documents in Chromium (${testEngine})`, { timeout: browserTimeout() }, () => {
  describe('an HTML document', () => {
    it('runs its own script and inline handlers in its frame; fetch, XHR, WebSocket, beacon, image, prefetch and form reach neither the web app nor a third site (and do without the CSP: the probes fire)', async () => {
      const targets = { web: web.url, outside: (outside as Outside).url }
      const probes = await artifact('html', 'network-probes', networkDocument(targets))
      const from = { received: outside?.received.length ?? 0, connections: outside?.connections ?? 0, web: webProbes.length }
      // What the browser got an answer for (it reports requests the CSP stopped too, but never their response).
      const responses: string[] = []
      const answered = (response: Response) => {
        if (response.url().includes('/xss-probe')) responses.push(`${response.status()} ${response.url()}`)
      }
      reader.context.on('response', answered)
      const outcome = await onPage(reader, probes.path, async (page) => {
        await frameIn(page.locator('iframe.rendered-html'))
        const [frame, ...others] = contentFrames(page)
        expect(others).toEqual([])
        if (!frame) throw new Error('no content frame')
        await frame.locator('body[data-done]').waitFor()
        // Each probe the CSP stops is reported to the document: all of them, then the network is left to go quiet.
        await until(
          'a CSP violation for each probe the CSP stops',
          async () => (await frame.locator('#violations li').count()) >= cspProbes.length * 2,
        )
        await page.waitForLoadState('networkidle')
        return {
          script: await frame.locator('#inline-script').textContent(),
          handler: await frame.locator('#inline-handler').textContent(),
          probes: Object.fromEntries(
            await frame
              .locator('#probes li')
              .evaluateAll((items) => items.map((item) => [(item as HTMLElement).dataset.probe, item.textContent])),
          ),
          violations: (await frame.locator('#violations li').allTextContents()).sort(),
          topUrl: page.url(),
        }
      }).finally(() => reader.context.off('response', answered))
      expect(outcome.script).toBe('ran')
      expect(outcome.handler).toBe('ran')
      const names = Object.keys(targets).flatMap((target) => networkProbes.map((probe) => `${probe}-${target}`))
      expect(outcome.probes).toEqual(Object.fromEntries(names.map((name) => [name, 'tried'])))
      expect(outcome.violations).toEqual(
        Object.entries(targets)
          .flatMap(([target, base]) =>
            cspProbes.map((probe) => {
              const directive = probe === 'image' ? 'img-src' : probe === 'prefetch' ? 'default-src' : 'connect-src'
              return `${directive} ${probe === 'websocket' ? base.replace(/^http/, 'ws') : base}/xss-probe-${probe}-${target}`
            }),
          )
          .sort(),
      )
      expect(outcome.topUrl).toBe(`${web.url}${probes.path}`)
      expect(outside?.received.slice(from.received)).toEqual([])
      expect(outside?.connections).toBe(from.connections)
      expect(webProbes.slice(from.web)).toEqual([])
      expect(responses).toEqual([])
      expect([...reader.ran, ...reader.opened]).toEqual([])

      // The control: the same document with the CSP bypassed (the frame's sandbox attribute still
      // holds) does reach both servers, with every probe but the form, which the sandbox stops.
      await onPage(bypassing, probes.path, async (page) => {
        await frameIn(page.locator('iframe.rendered-html'))
        const expected = (target: 'web' | 'outside') =>
          cspProbes
            .map(
              (probe) =>
                `${probe === 'websocket' ? 'UPGRADE' : probe === 'image' || probe === 'prefetch' ? 'GET' : 'POST'} /xss-probe-${probe}-${target}`,
            )
            .sort()
        const arrived = (list: readonly Received[], target: 'web' | 'outside') =>
          list
            .map((r) => r.line)
            .filter((line) => line.endsWith(`-${target}`))
            .sort()
        await until(
          'every probe but the form at both servers, without the CSP',
          () =>
            arrived(outside?.received.slice(from.received) ?? [], 'outside').length >= cspProbes.length &&
            arrived(webProbes.slice(from.web), 'web').length >= cspProbes.length,
        )
        await page.waitForLoadState('networkidle')
        expect(arrived(outside?.received.slice(from.received) ?? [], 'outside')).toEqual(expected('outside'))
        expect(arrived(webProbes.slice(from.web), 'web')).toEqual(expected('web'))
      })
    })

    it('cannot read the reader’s cookies or storage, reach into the page around it, navigate it or open a window', async () => {
      const targets = { web: web.url, outside: (outside as Outside).url }
      const escaping = await artifact('html', 'escapes', escapeDocument(targets))
      // The reader has a session, a cookie a script of the web app's could read, and something in its storage.
      await reader.context.addCookies([{ name: 'quire_readable', value: 'readable-cookie-value', url: web.url }])
      const cookies = await reader.context.cookies(web.url)
      const session = cookies.find((cookie) => cookie.name === 'quire_session')
      const sessionSecret = await sessionSecretIn(reader.context, web)
      expect(session?.value).toBeTruthy()
      expect(sessionSecret).toBeTruthy()
      const from = { received: outside?.received.length ?? 0, web: webProbes.length }
      const outcome = await onPage(reader, '/', async (page) => {
        await page.evaluate(() => {
          localStorage.setItem('quire-probe', 'local-storage-value')
          sessionStorage.setItem('quire-probe', 'session-storage-value')
        })
        await page.goto(`${web.url}${escaping.path}`)
        const frame = await frameIn(page.locator('iframe.rendered-html'))
        await frame.locator('body[data-done]').waitFor()
        await page.waitForLoadState('networkidle')
        return {
          outcomes: Object.fromEntries(
            await Promise.all(escapes.map(async (name) => [name, await frame.locator(`#${name}`).textContent()])),
          ),
          text: await frame.locator('body').textContent(),
          topUrl: page.url(),
          frames: contentFrames(page).length,
        }
      })
      expect(outcome.outcomes).toEqual({
        cookie: 'threw SecurityError',
        'local-storage': 'threw SecurityError',
        'session-storage': 'threw SecurityError',
        'indexed-db': 'threw SecurityError',
        'parent-document': 'threw SecurityError',
        'top-document': 'threw SecurityError',
        'parent-location': 'threw SecurityError',
        'parent-storage': 'threw SecurityError',
        'window-open': 'gave: null',
        'blank-link': 'gave: clicked',
        'top-location': 'threw SecurityError',
        'top-location-outside': 'threw SecurityError',
        'top-link': 'gave: clicked',
      })
      for (const secret of [session?.value, sessionSecret, 'readable-cookie-value', 'local-storage-value', 'session-storage-value'])
        expect(outcome.text).not.toContain(secret)
      expect(outcome.topUrl).toBe(`${web.url}${escaping.path}`)
      expect(outcome.frames).toBe(1)
      expect(reader.opened).toEqual([])
      expect(outside?.received.slice(from.received)).toEqual([])
      expect(webProbes.slice(from.web)).toEqual([])
    })

    it('cannot take even its own frame elsewhere, by a link or by script: the page frames the content origin only, so nothing reaches a third site', async () => {
      const from = outside?.received.length ?? 0
      for (const how of ['link', 'script']) {
        const target = `${(outside as Outside).url}/xss-probe-frame-${how}`
        const leaving = await artifact(
          'html',
          `leaving-by-${how}`,
          `<!doctype html>
<html lang="en"><title>Leaving</title>
<p><a id="link" href="${target}">Leave by a link</a></p>
<p><button id="script" type="button">Leave by script</button></p>
<script>document.getElementById('script').addEventListener('click', () => { location.href = '${target}' })</script>
</html>`,
        )
        await onPage(reader, leaving.path, async (page) => {
          const frame = await frameIn(page.locator('iframe.rendered-html'))
          const document = frame.url()
          await frame.locator(`#${how}`).click()
          // The frame leaves its document and lands on the browser's error page: the page's `frame-src` refused the address.
          const landed = await until(`the frame to leave its document (by ${how})`, () => frame.url() !== document && frame.url())
          expect(landed, how).toBe('chrome-error://chromewebdata/')
          expect(page.url(), how).toBe(`${web.url}${leaving.path}`)
        })
      }
      expect(outside?.received.slice(from)).toEqual([])
      expect(reader.opened).toEqual([])
    })

    it('is drawn again when its page is opened a second time (a revalidated page keeps the policy that lets it frame the document)', async () => {
      const again = await artifact(
        'html',
        'opened-twice',
        '<!doctype html><html lang="en"><title>Twice</title><p id="here">Drawn.</p></html>',
      )
      const page = await reader.context.newPage()
      try {
        for (const visit of ['first', 'second']) {
          const response = await page.goto(`${web.url}${again.path}`)
          expect(response?.status()).toBe(200)
          // The second answer is a 304 whose headers the browser merges into the page it kept.
          const policy = (await response?.allHeaders())?.['content-security-policy'] ?? ''
          expect(policy, `the policy the ${visit} visit runs under`).toContain(`frame-src ${contentUrl}`)
          const frame = await frameIn(page.locator('iframe.rendered-html'))
          expect(await frame.locator('#here').textContent(), `the ${visit} visit`).toBe('Drawn.')
        }
      } finally {
        await page.close()
      }
    })
  })

  describe('an SVG document', () => {
    it('runs no script, shown as an image on its page or opened on its own, and fetches nothing', async () => {
      const svgs = svgDocuments((outside as Outside).url)
      const from = { received: outside?.received.length ?? 0, connections: outside?.connections ?? 0 }
      const opened: string[] = []
      for (const [slug, content] of Object.entries(svgs)) {
        const created = await artifact('svg', slug, content)
        const capability = await onPage(reader, created.path, async (page) => {
          const image = page.locator('img.rendered-image')
          await until(`the image of ${slug} to load`, () => image.evaluate((img: HTMLImageElement) => img.complete))
          expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth), `${slug} is drawn`).toBe(120)
          expect(await page.locator('iframe').count()).toBe(0)
          return (await image.getAttribute('src')) as string
        })
        expect(capability.startsWith(`${contentUrl}/d/`)).toBe(true)
        opened.push(capability)
        // On its own, at the top: the CSP's `sandbox` (without `allow-scripts`) runs none of it.
        await onPage(reader, capability, async (page) => {
          expect(await page.evaluate(() => typeof (window as unknown as { __xss?: unknown }).__xss)).toBe('function')
          for (const target of ['#link', '#xlink']) if ((await page.locator(target).count()) > 0) await page.locator(target).click()
          await page.waitForLoadState('networkidle')
          expect(page.url()).toBe(capability)
        })
      }
      expect([...reader.ran, ...reader.opened]).toEqual([])
      expect(outside?.received.slice(from.received)).toEqual([])
      expect(outside?.connections).toBe(from.connections)

      // The control: without the CSP, the same documents opened on their own do run (the binding reaches them).
      const ran = bypassing.ran.length
      for (const capability of opened)
        await onPage(bypassing, capability, async (page) => {
          for (const target of ['#link', '#xlink']) if ((await page.locator(target).count()) > 0) await page.locator(target).click()
          await page.waitForLoadState('networkidle')
        })
      const controls = bypassing.ran.slice(ran).map((run) => run.split(' in ')[0])
      expect(controls).toEqual(expect.arrayContaining(['svg onload', 'svg script', 'foreignObject script', 'svg link', 'svg xlink']))
    })
  })

  describe('a Mermaid diagram', () => {
    it('is drawn as an SVG in its frame, whatever its kind', async () => {
      for (const { kind, role, source } of diagramKinds) {
        const created = await artifact('mermaid', `diagram-${kind}`, source)
        await onPage(reader, created.path, async (page) => {
          const frame = await drawnDiagram(page.locator('iframe.rendered-diagram'))
          expect(await frame.locator('body').getAttribute('class'), kind).toBe('drawn')
          expect(await frame.locator('#diagram svg').getAttribute('aria-roledescription'), kind).toBe(role)
          expect(await frame.locator('#diagram-source').isVisible(), kind).toBe(false)
        })
      }
      expect([...reader.ran, ...reader.opened]).toEqual([])
    })

    it('runs nothing when its nodes are clicked (callbacks, calls, script links), and draws an HTML label as text', async () => {
      const trapped = await artifact('mermaid', 'trapped-diagram', trappedDiagram)
      // With the CSP as served, and without it: Mermaid's strict level alone must give nothing either.
      for (const who of [reader, bypassing]) {
        const before = { ran: who.ran.length, opened: who.opened.length }
        await onPage(who, trapped.path, async (page) => {
          const frame = await drawnDiagram(page.locator('iframe.rendered-diagram'))
          const frameUrl = frame.url()
          expect(await frame.evaluate(() => typeof (window as unknown as { __xss?: unknown }).__xss)).toBe('function')
          expect(await frame.locator('body').getAttribute('class')).toBe('drawn')
          const nodes = frame.locator('#diagram svg .node')
          expect(await nodes.count()).toBe(5)
          for (const node of await nodes.all()) await node.click()
          await page.waitForLoadState('networkidle')
          expect(await frame.locator('#diagram svg img, #diagram svg foreignObject, #diagram svg [onclick]').count()).toBe(0)
          expect(await frame.locator('#diagram svg').textContent()).toContain('<img src=')
          expect(frame.url()).toBe(frameUrl)
          expect(page.url()).toBe(`${web.url}${trapped.path}`)
        })
        expect(who.ran.slice(before.ran)).toEqual([])
        expect(who.opened.slice(before.opened)).toEqual([])
      }
    })

    it('that does not parse shows why, and its source', async () => {
      const broken = await artifact('mermaid', 'broken-diagram', 'flowchart LR\n  A --> ((\n')
      await onPage(reader, broken.path, async (page) => {
        const frame = await drawnDiagram(page.locator('iframe.rendered-diagram'))
        const error = frame.locator('.diagram-error')
        expect(await error.isVisible()).toBe(true)
        expect(await error.getAttribute('role')).toBe('alert')
        expect(await error.textContent()).toMatch(/^This diagram could not be drawn: Parse error on line 2/)
        expect(await frame.locator('#diagram svg').count()).toBe(0)
        const source = frame.locator('pre#diagram-source')
        expect(await source.isVisible()).toBe(true)
        expect(await source.textContent()).toBe('flowchart LR\n  A --> ((\n')
      })
    })

    it('in a Markdown document is drawn in a frame of its own, each, with its source folded beneath', async () => {
      const twice = await artifact(
        'md',
        'two-diagrams',
        '# Two diagrams\n\n```mermaid\nflowchart LR\n  Draft --> Published\n```\n\nBetween them.\n\n```mermaid\nsequenceDiagram\n  Writer->>Reader: A new version\n```\n',
      )
      await onPage(reader, twice.path, async (page) => {
        const figures = page.locator('figure.diagram')
        expect(await figures.count()).toBe(2)
        const roles: (string | null)[] = []
        for (const figure of await figures.all()) {
          const frame = await drawnDiagram(figure.locator('iframe.rendered-frame.rendered-diagram'))
          roles.push(await frame.locator('#diagram svg').getAttribute('aria-roledescription'))
          expect(await figure.locator('details.diagram-source summary').textContent()).toBe('Diagram source')
        }
        expect(roles).toEqual(['flowchart-v2', 'sequence'])
        expect(contentFrames(page)).toHaveLength(2)
      })
    })
  })

  describe('capabilities', () => {
    const status = async (url: string) => {
      const response = await fetch(url)
      await response.body?.cancel()
      return response.status
    }
    /** The JWT of a capability URL, and the URL of a JWT. */
    const tokenOf = (url: string) => url.slice(`${contentUrl}/d/`.length)
    const withToken = (token: string) => `${contentUrl}/d/${token}`

    it('answer 404 once expired, altered or forged, for another version or diagram, or once the artifact is deleted', async () => {
      const previews = web.runtime.deps.previews
      if (!previews) throw new Error('no content origin')
      const page = await artifact('html', 'capability', '<!doctype html><html lang="en"><title>C</title><p>Capability.</p></html>')
      const other = await artifact('svg', 'capability-other', svgDocuments('http://127.0.0.2:9')['svg-links'] ?? '')
      const read = await writer.api('GET', `/api/artifacts/${page.id}`)
      const current = read.previewUrl as string
      expect(current.startsWith(`${contentUrl}/d/`)).toBe(true)
      expect(Date.parse(read.previewExpiresAt as string)).toBeGreaterThan(Date.now())
      expect(await status(current)).toBe(200)

      const expired = await previews.mint({ artifactId: page.id, versionNumber: 1 }, new Date(Date.now() - 20 * 60_000))
      expect(expired.expiresAt.getTime()).toBeLessThan(Date.now())
      expect(await status(expired.url)).toBe(404)

      const [header, payload, signature] = tokenOf(current).split('.') as [string, string, string]
      const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
      const altered = {
        'a signature character': `${header}.${payload}.${flip(signature, 10)}`,
        'a payload character': `${header}.${flip(payload, 12)}.${signature}`,
        'the artifact named': `${header}.${encode({ ...claims, sub: other.id })}.${signature}`,
        'a later expiry': `${header}.${encode({ ...claims, exp: (claims.exp as number) + 3600 })}.${signature}`,
        'no signature, alg none': `${encode({ alg: 'none' })}.${payload}.`,
        'no signature': `${header}.${payload}.`,
      }
      for (const [what, token] of Object.entries(altered)) expect(await status(withToken(token)), what).toBe(404)

      const missingVersion = await previews.mint({ artifactId: page.id, versionNumber: 2 }, new Date())
      expect(await status(missingVersion.url), 'a version the artifact does not have').toBe(404)
      const notADiagram = await previews.mint({ artifactId: page.id, versionNumber: 1, diagram: 0 }, new Date())
      expect(await status(notADiagram.url), 'a diagram of an HTML artifact').toBe(404)

      await writer.api('DELETE', `/api/artifacts/${page.id}`)
      expect(await status(current), 'the deleted artifact').toBe(404)
      const minted = await previews.mint({ artifactId: page.id, versionNumber: 1 }, new Date())
      expect(await status(minted.url), 'a fresh capability of the deleted artifact').toBe(404)
    })
  })

  describe('the height protocol', () => {
    it('fits a frame to its document, tall or short, and bounds what a document claims', async () => {
      const documents = {
        tall: '<!doctype html><html lang="en"><title>Tall</title><body style="margin:0"><div style="height:3000px">Tall.</div></body></html>',
        short:
          '<!doctype html><html lang="en"><title>Short</title><body style="margin:0"><p style="margin:0;height:100px">Short.</p></body></html>',
        // A document's own script claims to be a billion pixels tall, again and again.
        claiming: `<!doctype html><html lang="en"><title>Claims</title><p>Claims.</p><script>
setInterval(() => window.parent.postMessage({ type: 'quire:frame-height', height: 1e9 }, '*'), 100)
</script></html>`,
      }
      const heights: Record<string, number> = {}
      let initial = 0
      for (const [name, content] of Object.entries(documents)) {
        const created = await artifact('html', `height-${name}`, content)
        await onPage(reader, created.path, async (page) => {
          initial = await unfittedHeight(page, 'html')
          const element = page.locator('iframe.rendered-html')
          await frameIn(element)
          // The claiming document's frame first fits its real height, then takes the claims (bounded, or not).
          const fitted = name === 'claiming' ? (height: number) => height > DESKTOP.height : (height: number) => height !== initial
          heights[name] = await settledHeight(element, `the ${name} frame to fit`, fitted)
        })
      }
      expect(heights.tall).toBeGreaterThan(initial)
      expect(heights.tall).toBe(3000)
      expect(heights.short).toBeLessThan(initial)
      expect(heights.short).toBe(100)
      expect(heights.claiming).toBe(12000)
    })
  })

  describe('the pages that embed documents', () => {
    const pages: Record<keyof typeof showcase, string> = { html: '', svg: '', mermaid: '', markdown: '' }
    beforeAll(async () => {
      for (const [name, document] of Object.entries(showcase) as [keyof typeof showcase, (typeof showcase)[keyof typeof showcase]][]) {
        const type = name === 'markdown' ? 'md' : name
        pages[name] = (await artifact(type, document.slug, document.content, document.title)).path
      }
    })

    /** Waits until every document of the page is drawn (frames loaded and fitted, diagrams drawn, the image decoded). */
    async function drawn(page: Page, name: keyof typeof showcase): Promise<void> {
      if (name === 'svg') {
        const image = page.locator('img.rendered-image')
        await until('the chart to load', () => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        return
      }
      const elements = await page.locator('iframe.rendered-frame').all()
      expect(elements.length).toBe(1)
      const unfitted = await unfittedHeight(page, name === 'html' ? 'html' : 'diagram')
      for (const element of elements) {
        const frame = name === 'html' ? await frameIn(element) : await drawnDiagram(element)
        if (name === 'html') expect(await frame.locator('body').getAttribute('data-filled')).toBe('5')
        else expect(await frame.locator('#diagram svg').count()).toBe(1)
        await settledHeight(element, `the ${name} frame to fit`, (height) => height !== unfitted)
      }
      await page.evaluate(() => window.scrollTo(0, 0))
    }

    it('are drawn whole at desktop and phone sizes, with nothing run outside their frames', async () => {
      // At a scale of 1, as tooling/scripts/screenshots.ts takes its pictures (at 2, headless Chromium
      // draws the content origin's frames, out of process, at 1 and scales them up: blurred).
      const phone = await newReader({ viewport: PHONE, storageState: await reader.context.storageState() })
      try {
        for (const [size, who] of [
          ['desktop', reader],
          ['phone', phone],
        ] as const) {
          for (const name of Object.keys(showcase) as (keyof typeof showcase)[]) {
            await onPage(who, pages[name], async (page) => {
              await drawn(page, name)
              const shot = await page.screenshot({ animations: 'disabled', caret: 'hide' })
              expect(shot.length, `${name} at ${size}`).toBeGreaterThan(10_000)
            })
          }
          expect([...who.ran, ...who.opened]).toEqual([])
        }
      } finally {
        await phone.context.close()
      }
    })

    it('have no axe violation, the documents in their frames included', async () => {
      for (const name of Object.keys(showcase) as (keyof typeof showcase)[]) {
        await onPage(bypassing, pages[name], async (page) => {
          await drawn(page, name)
          // axe runs in the page and in each frame, and the frames answer the page (their origin is opaque: any origin is allowed).
          for (const frame of [page.mainFrame(), ...contentFrames(page)]) {
            await frame.addScriptTag({ content: axeSource })
            await frame.evaluate(() =>
              (window as unknown as { axe: { configure(options: object): void } }).axe.configure({
                allowedOrigins: ['<unsafe_all_origins>'],
              }),
            )
          }
          type Results = Record<
            'violations' | 'passes',
            { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[]
          >
          const results = (await page.evaluate(() =>
            // axe asks each frame whether it is there and waits 500 ms by default (`pingWaitTime`): on a busy
            // machine a frame answered later and was skipped, unchecked. It gets as long as any wait here.
            (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } }).axe.run(document, {
              pingWaitTime: 30_000,
            }),
          )) as Results
          const found = results.violations.flatMap((v) =>
            v.nodes.map((node) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(node.target)}`),
          )
          expect(found, `axe on the ${name} page`).toEqual([])
          // The frames were checked too: some of what passed is inside one (its target names the frame, then the element).
          const inFrames = results.passes.flatMap((rule) => rule.nodes).filter((node) => node.target.length > 1)
          if (name === 'svg') expect(inFrames).toEqual([])
          else expect(inFrames.length, `nodes checked inside the ${name} page's frame`).toBeGreaterThan(0)
        })
      }
    })
  })
})
