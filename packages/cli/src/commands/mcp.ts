import { finished } from 'node:stream/promises'
import type { TokenSource } from '@quire/client'
import { clientExecutor, serveStdio } from '@quire/mcp'
import { resolveToken } from '../credentials/token-source.ts'
import { cliClient } from '../run/cli-client.ts'
import { CliError } from '../run/cli-error.ts'
import type { CommandContext, Handler, ResolvedToken } from '../run/context.ts'
import { redact } from '../run/redact.ts'
import { cliVersion } from '../version.ts'

/** How long a credential read from the OS store is used before the store is read again. */
const storedTokenTtlMs = 30_000

const sourceNames: Record<ResolvedToken['source'], string> = {
  flag: '--token',
  stdin: '--token-stdin',
  env: 'AGENT_SERVICE_TOKEN',
  keyring: 'the OS credential store',
  none: 'none',
}

/**
 * The credential of each tool call. One given with --token or AGENT_SERVICE_TOKEN stays as it is.
 * The stored one (or none) is read again, by the same precedence as every command, once it is
 * older than `storedTokenTtlMs`: a server that runs for hours gets its sign-in renewed before it
 * expires, and picks up a `quire login` made after the host started it. Concurrent calls share one
 * read (so at most one renewal at a time).
 */
function tokenSource(context: CommandContext, first: ResolvedToken): TokenSource {
  if (first.source !== 'keyring' && first.source !== 'none') return first.token
  const { globals, env, io } = context
  let current = { token: first.token, at: Date.now() }
  let reading: Promise<string | null> | null = null
  return () => {
    if (Date.now() - current.at < storedTokenTtlMs) return current.token
    reading ??= resolveToken(globals, env, io)
      .then(({ token }) => {
        current = { token, at: Date.now() }
        return token
      })
      .finally(() => {
        reading = null
      })
    return reading
  }
}

/**
 * `quire mcp`: the MCP tools of `@quire/mcp` over stdio until standard input ends, each tool call a
 * REST call to the base URL with the CLI's credential (`Quire-Client: mcp/<version>`, so the audit
 * trail records `via.surface: "mcp"`). Standard output carries MCP messages only; notes and errors
 * go to standard error. Without a credential it still starts: the host lists the tools, and each
 * call answers `unauthenticated` (an `isError` result saying what to do) until one is configured.
 */
export const mcp: Handler = async (context) => {
  const { globals, io } = context
  if (globals.tokenStdin)
    throw new CliError('usage', '--token-stdin cannot be used with quire mcp: standard input carries the MCP messages.', {
      hint: "Set AGENT_SERVICE_TOKEN in the MCP host's configuration of this server, or run quire login once.",
    })
  if (globals.dryRun) throw new CliError('usage', '--dry-run does not apply to quire mcp: the MCP host makes the calls, and they are real.')

  const input = process.stdin
  // Listening before the server reads, so that an input that ends at once is not missed.
  const inputEnded = finished(input, { writable: false }).catch(() => {})

  const first = await context.token()
  if (first.token === null)
    io.stderr(
      `warning: quire mcp has no credential for ${globals.baseUrl}: every tool call answers "unauthenticated" until you run quire login (used within ${storedTokenTtlMs / 1000} s) or set AGENT_SERVICE_TOKEN in the MCP host's configuration of this server.\n`,
    )
  const client = cliClient(globals, io, tokenSource(context, first), 'mcp')
  // The calls still running when the input ends are answered before the process exits: a host (or
  // `printf … | quire mcp`) that closes its end after its last request still gets every answer.
  const running = new Set<Promise<unknown>>()
  const remote = clientExecutor(client)
  const execute: typeof remote = (call) => {
    const pending = remote(call)
    running.add(pending)
    void pending.finally(() => running.delete(pending)).catch(() => {})
    return pending
  }
  const { closed } = await serveStdio(
    {
      execute,
      version: cliVersion,
      onError: (error, tool) => {
        const message = error instanceof Error ? error.message : String(error)
        io.stderr(`error: quire mcp: ${tool}: ${redact(message)}\n`)
        if (globals.debug && error instanceof Error && error.stack) io.stderr(`${redact(error.stack)}\n`)
      },
    },
    { input, output: process.stdout },
  )
  context.progress(
    `quire mcp ${cliVersion}: serving the Quire MCP tools on standard input and output for ${globals.baseUrl} (credential: ${sourceNames[first.source]}).`,
  )
  if (io.stdinIsTty) context.progress('Standard input is a terminal: an MCP host is expected to start this command. Ctrl-D ends it.')

  await Promise.race([inputEnded, closed])
  while (running.size > 0) await Promise.allSettled([...running])
  // The answers are written once their results are shaped, a few turns after the call settles.
  await new Promise((resolve) => setTimeout(resolve, 50))
  // Standard output was the MCP channel: nothing is printed after it (an empty stream renders as nothing in every format).
  return { kind: 'stream', items: (async function* () {})() }
}
