import { CookieJar } from '@quire/testing/cookie-jar'
import type { TestWeb } from './helper.ts'

/** A person signed in to the web app over plain HTTP: a cookie jar and the requests a browser would send. */
export interface HttpSession {
  readonly email: string
  /** GET a page of the web app with the session cookie (redirects are not followed). */
  get(path: string, headers?: Record<string, string>): Promise<Response>
  /** POST a form with the session cookie, as the page's own form would (same origin). */
  postForm(path: string, fields: Record<string, string>): Promise<Response>
  /** The CSRF token of the session's forms (read off a page, as a browser has it). */
  csrf(): Promise<string>
}

/**
 * Signs in through the development provider over HTTP, as a browser would, without one: follows
 * the redirects by hand, fills the provider's form with `email`, and keeps the cookies. Ends on the
 * page `returnTo` names (default `/`); the answer there is returned with the session.
 */
export async function signInOverHttp(
  web: TestWeb,
  email: string,
  options: { returnTo?: string; unverified?: boolean } = {},
): Promise<HttpSession & { landed: Response }> {
  const jar = new CookieJar()
  const send = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(url, web.url), {
      ...init,
      redirect: 'manual',
      headers: { cookie: jar.header(), accept: 'text/html', ...(init.headers as Record<string, string> | undefined) },
    })
    jar.take(response)
    return response
  }
  const query = options.returnTo === undefined ? '' : `?return_to=${encodeURIComponent(options.returnTo)}`
  let response = await send(`/login${query}`)
  for (let hops = 0; hops < 20; hops++) {
    const location = response.headers.get('location')
    if (location !== null) {
      await response.arrayBuffer()
      response = await send(location)
      continue
    }
    const url = new URL(response.url)
    if (!url.pathname.startsWith('/dev-oidc/interaction/')) break
    const page = await response.text()
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]
    if (!action) throw new Error('the development provider showed no sign-in form')
    const fields = new URLSearchParams({ email, action: 'sign-in', ...(options.unverified ? { unverified: '1' } : {}) })
    response = await send(action.replaceAll('&amp;', '&'), {
      method: 'POST',
      body: fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: web.url },
    })
  }
  if (!jar.header().includes('quire_session=')) throw new Error(`signing in as ${email} set no session cookie`)
  const session: HttpSession = {
    email,
    get: (path, headers = {}) => send(path, { headers }),
    postForm: (path, fields) =>
      send(path, {
        method: 'POST',
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: web.url },
      }),
    async csrf() {
      const page = await (await send('/settings')).text()
      const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1]
      if (!token) throw new Error('no CSRF token on the settings page')
      return token
    },
  }
  return { ...session, landed: response }
}
