import { createHash, randomBytes } from 'node:crypto'
import { CookieJar } from '@quire/testing/cookie-jar'

/**
 * A person's browser over plain HTTP, for the topology: one cookie jar for 127.0.0.1 whatever the
 * port (cookies are per host, not per port, as in a browser), so a sign-in started on one web
 * process can be finished on another by sending the same request to the other's port.
 */
export class Browser {
  readonly #cookies = new CookieJar()
  /** The web app's public origin (forms are posted from it). */
  readonly origin: string

  constructor(origin: string) {
    this.origin = origin
  }

  async send(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const response = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: this.#cookies.header(),
        accept: 'text/html',
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin } : {}),
        ...init.headers,
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    })
    this.#cookies.take(response)
    return response
  }

  has(cookie: string): boolean {
    return this.#cookies.has(cookie)
  }
}

/** `location` resolved against the request's URL. */
export function locationOf(response: Response, base: string): string | null {
  const location = response.headers.get('location')
  return location === null ? null : new URL(location, base).toString()
}

/** Moves a URL on the web frontend to another origin (a process's own port), same path and query. */
export function onOrigin(url: string, origin: string): string {
  const moved = new URL(url)
  const target = new URL(origin)
  moved.protocol = target.protocol
  moved.host = target.host
  return moved.toString()
}

/**
 * Signs in through the development provider (the standalone one behind the web frontend):
 * `/login` on `start` (a web process's own origin), the provider's form through the balancer, and
 * the callback sent to `finish` (another process's origin). Returns the callback's answer.
 */
export async function signIn(
  browser: Browser,
  email: string,
  start: string,
  finish: string,
): Promise<{ callback: Response; callbackUrl: string }> {
  let url = `${start}/login`
  let response = await browser.send(url)
  for (let hops = 0; hops < 20; hops++) {
    const next = locationOf(response, url)
    if (next !== null) {
      await response.arrayBuffer()
      url = new URL(next).pathname === '/auth/callback' ? onOrigin(next, finish) : next
      response = await browser.send(url)
      if (new URL(url).pathname === '/auth/callback') return { callback: response, callbackUrl: url }
      continue
    }
    if (!new URL(url).pathname.startsWith('/dev-oidc/interaction/')) break
    const page = await response.text()
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]
    if (!action) throw new Error('the development provider showed no sign-in form')
    url = new URL(action.replaceAll('&amp;', '&'), url).toString()
    response = await browser.send(url, { form: { email, action: 'sign-in' } })
  }
  throw new Error(`the sign-in never reached /auth/callback (last: ${response.status} ${url})`)
}

/** PKCE: a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** The hidden fields of the consent form (the request posted back), HTML entities undone. */
export function consentFields(page: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = (match[2] as string).replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'")
  }
  return fields
}

/** A JSON-RPC answer of `/mcp`: a JSON body, or the first `data:` line of an event stream. */
export async function mcpAnswer(response: Response): Promise<{ id?: unknown; result?: Record<string, unknown>; error?: unknown }> {
  const text = await response.text()
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').find((line) => line.startsWith('data:'))
    if (!data) throw new Error(`an event stream without data: ${text}`)
    return JSON.parse(data.slice(5))
  }
  return JSON.parse(text)
}
