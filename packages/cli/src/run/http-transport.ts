import type { FetchLike } from '@quire/client'

type NodeHttp = typeof import('node:http')

/**
 * `node:http` or `node:https`, without the static import that would load fetch's undici with it
 * (`process.getBuiltinModule`, Node 22.3+; before that, the import).
 */
async function httpModule(protocol: string): Promise<NodeHttp> {
  const name = protocol === 'https:' ? 'node:https' : 'node:http'
  return (process.getBuiltinModule?.(name) as NodeHttp | undefined) ?? ((await import(name)) as NodeHttp)
}

/** The part of a fetch `Response` the typed client reads: status, headers, the body as text. */
function responseOf(status: number, headers: NodeJS.Dict<string | string[]>, text: string): Response {
  const get = (name: string) => {
    const value = headers[name.toLowerCase()]
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  }
  const response = {
    status,
    ok: status >= 200 && status < 300,
    headers: { get, has: (name: string) => get(name) !== null },
    body: null,
    text: async () => text,
  }
  return response as unknown as Response
}

/**
 * The CLI's requests, over `node:http(s)` rather than `fetch`: `fetch` loads undici on first use,
 * 150–190 ms on the machines bench/cli runs on, against some 25 ms for the same GET this way, and
 * a command is usually one request. The client takes it as its `fetch` (`FetchLike`): the method,
 * headers and body it builds are sent as they are, an abort (the time limit) ends the request,
 * and the answer is read whole.
 */
export const nodeHttpFetch: FetchLike = async (url, init) => {
  const target = new URL(url)
  const http = await httpModule(target.protocol)
  return new Promise((resolve, reject) => {
    const request = http.request(
      target,
      { method: init.method ?? 'GET', headers: init.headers as Record<string, string>, ...(init.signal ? { signal: init.signal } : {}) },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.once('error', reject)
        response.once('end', () => resolve(responseOf(response.statusCode ?? 0, response.headers, Buffer.concat(chunks).toString('utf8'))))
      },
    )
    request.once('error', reject)
    request.end(typeof init.body === 'string' ? init.body : undefined)
  })
}
