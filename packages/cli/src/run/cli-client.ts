import { createClient, type FetchLike, type QuireClient, REDACTED, type TokenSource } from '@quire/client'
import { cliVersion } from '../version.ts'
import type { Globals, Io } from './context.ts'
import { nodeHttpFetch } from './http-transport.ts'

/** A call taking longer than this is reported as the service being unavailable (exit 7). */
const CALL_TIMEOUT_MS = 60_000

/**
 * The one way the CLI makes a client: its name in the audit trail, a time limit, --debug's tracing.
 * `surface` is the first segment of `Quire-Client` (the audit trail's `via.surface`): `mcp` for
 * the tool calls `quire mcp` makes on behalf of an MCP host.
 */
export function cliClient(globals: Globals, io: Io, token: TokenSource, surface: 'cli' | 'mcp' = 'cli'): QuireClient {
  return createClient({
    baseUrl: globals.baseUrl,
    token,
    clientName: `${surface}/${cliVersion}`,
    userAgent: `quire-cli/${cliVersion} node/${process.versions.node}`,
    timeoutMs: CALL_TIMEOUT_MS,
    fetch: globals.debug ? debugFetch(io) : nodeHttpFetch,
  })
}

/** With --debug: each request and its answer on standard error, the credential redacted. */
function debugFetch(io: Io): FetchLike {
  return async (input, init) => {
    const started = performance.now()
    const headers = new Headers(init?.headers)
    if (headers.has('authorization')) headers.set('authorization', `Bearer ${REDACTED}`)
    io.stderr(`debug: ${init?.method ?? 'GET'} ${String(input)} ${JSON.stringify(Object.fromEntries(headers))}\n`)
    const response = await nodeHttpFetch(input, init)
    io.stderr(
      `debug: ← ${response.status} in ${Math.round(performance.now() - started)} ms (request id ${response.headers.get('x-request-id') ?? '-'})\n`,
    )
    return response
  }
}
