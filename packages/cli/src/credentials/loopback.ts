import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The loopback redirect of a native app (RFC 8252 §7.3): a listener on 127.0.0.1, on a port the
 * system picks, that waits for the browser to come back to `/callback` with the authorization
 * response. Only a response carrying this login's `state` is taken; anything else is answered and
 * ignored, so a stray request cannot end the wait.
 */
export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUri: string
  /** The full callback URL the browser was sent to (the code or the error is in its query). */
  readonly callback: Promise<URL>
  close(): Promise<void>
}

function page(title: string, message: string): string {
  const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${html(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style></head>
<body><h1>${html(title)}</h1><p>${html(message)}</p></body></html>
`
}

function answer(response: ServerResponse, status: number, html: string): Promise<void> {
  return new Promise((done) => {
    response.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'referrer-policy': 'no-referrer',
      connection: 'close',
    })
    response.end(html, done)
  })
}

export async function listenForCallback(expectedState: string): Promise<LoopbackListener> {
  let arrived: (url: URL) => void = () => {}
  const callback = new Promise<URL>((done) => {
    arrived = done
  })
  let settled = false
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (request.method !== 'GET' || url.pathname !== '/callback') {
      void answer(response, 404, page('Not found', 'This address only receives the sign-in of quire login.'))
      return
    }
    if (settled || url.searchParams.get('state') !== expectedState) {
      void answer(
        response,
        400,
        page('Not this sign-in', 'This answer is not for the quire login that is waiting. Run quire login again if needed.'),
      )
      return
    }
    settled = true
    const error = url.searchParams.get('error')
    const html = error
      ? page(
          'Sign-in not completed',
          `${url.searchParams.get('error_description') ?? error}. You can close this window; quire login has stopped.`,
        )
      : page('Signed in to quire', 'You can close this window and go back to your terminal.')
    void answer(response, error ? 400 : 200, html).then(() => arrived(new URL(`${redirectUri}${url.search}`)))
  })
  await new Promise<void>((done, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => done())
  })
  const port = (server.address() as AddressInfo).port
  const redirectUri = `http://127.0.0.1:${port}/callback`
  return {
    redirectUri,
    callback,
    close: () =>
      new Promise((done) => {
        server.close(() => done())
        server.closeAllConnections()
      }),
  }
}
