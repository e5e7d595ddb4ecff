import type { CliEnvironment } from '../config.ts'
import { CliError } from '../run/cli-error.ts'
import type { Globals, Io, ResolvedToken } from '../run/context.ts'

/** One token: printable, no spaces (a stray newline would end up in a header, and in error messages). */
function wellFormed(token: string, from: string): string {
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new CliError('usage', `The token in ${from} is not one token: it has spaces or control characters.`)
  return token
}

/**
 * The bearer token for a call, by the documented precedence: `--token-stdin` or `--token`, then
 * `AGENT_SERVICE_TOKEN`, then the token stored by `quire login` for this base URL. The source is
 * reported (auth status), never the secret.
 */
export async function resolveToken(globals: Globals, env: CliEnvironment, io: Io): Promise<ResolvedToken> {
  if (globals.tokenStdin) {
    const token = (await io.readStdin()).trim()
    if (token === '') throw new CliError('usage', '--token-stdin was given, but standard input was empty.')
    return { token: wellFormed(token, 'standard input (--token-stdin)'), source: 'stdin' }
  }
  if (globals.token) return { token: wellFormed(globals.token, '--token'), source: 'flag' }
  if (env.token) return { token: wellFormed(env.token, 'AGENT_SERVICE_TOKEN'), source: 'env' }
  // The store (and its node:crypto) loads only when no token was given: start-up stays short.
  const { readStoredToken } = await import('./store.ts')
  const stored = await readStoredToken(env, globals.baseUrl, io, { debug: globals.debug, renew: !globals.dryRun })
  return stored ? { token: stored, source: 'keyring' } : { token: null, source: 'none' }
}
