import type { CliEnvironment } from '../config.ts'
import { CliError } from '../run/cli-error.ts'
import type { Globals, Io, ResolvedToken } from '../run/context.ts'
import { readStoredToken } from './store.ts'

/**
 * The bearer token for a call, by the documented precedence: `--token-stdin` or `--token`, then
 * `AGENT_SERVICE_TOKEN`, then the token stored by `quire login` for this base URL. The source is
 * reported (auth status), never the secret.
 */
export async function resolveToken(globals: Globals, env: CliEnvironment, io: Io): Promise<ResolvedToken> {
  if (globals.tokenStdin) {
    const token = (await io.readStdin()).trim()
    if (token === '') throw new CliError('usage', '--token-stdin was given, but standard input was empty.')
    if (/\s/.test(token)) throw new CliError('usage', '--token-stdin expects one token on standard input.')
    return { token, source: 'stdin' }
  }
  if (globals.token) return { token: globals.token, source: 'flag' }
  if (env.token) return { token: env.token, source: 'env' }
  const stored = await readStoredToken(env, globals.baseUrl, io, { debug: globals.debug })
  return stored ? { token: stored, source: 'keyring' } : { token: null, source: 'none' }
}
