import { isQuireApiError, type QuireClient, QuireNetworkError } from '@quire/client'
import { operations } from '@quire/core/contract'
import { builtin } from '../builtin.ts'
import { type CliEnvironment, readEnvironment } from '../config.ts'
import { resolveToken } from '../credentials/token-source.ts'
import { commandEntries } from '../registry/entries.ts'
import { defaultBaseUrl } from '../registry/globals.ts'
import type { CommandSpec } from '../registry/types.ts'
import { cliVersion } from '../version.ts'
import { resolveArtifact, resolveArtifactId } from './artifact-reference.ts'
import { callOperation } from './call-operation.ts'
import { cliClient } from './cli-client.ts'
import { CliError } from './cli-error.ts'
import { read, tree } from './command-line.ts'
import type { Args, CommandContext, CommandResult, Globals, Io, ResolvedToken } from './context.ts'
import { exitCodes, exitNameOf } from './exit-codes.ts'
import { handlers } from './handlers.ts'
import { camel, checkedArgs } from './input.ts'
import { renderer } from './output.ts'
import { parseFlags } from './parse-flags.ts'
import { redact } from './redact.ts'

/**
 * The positionals, onto the flags they stand for; a value given both ways must agree. A `words`
 * positional (the last) takes every word left, joined with spaces as typed.
 */
function withPositionals(spec: CommandSpec, args: Args, typed: readonly string[]): Args {
  const positionals = spec.positionals ?? []
  const rest = positionals.at(-1)?.kind === 'words' ? positionals.length - 1 : -1
  const words = rest >= 0 && typed.length > rest ? [...typed.slice(0, rest), typed.slice(rest).join(' ')] : typed
  if (words.length > positionals.length)
    throw new CliError('usage', `Unexpected argument "${words[positionals.length]}" for "quire ${spec.path.join(' ')}".`, {
      hint: positionals.length
        ? `It takes ${positionals.map((p) => p.name.toUpperCase()).join(' ')} and flags; see quire ${spec.path.join(' ')} --help.`
        : `It takes flags only; see quire ${spec.path.join(' ')} --help.`,
    })
  const merged: Record<string, unknown> = { ...args }
  positionals.forEach((positional, i) => {
    const word = words[i]
    if (word === undefined) return
    const key = camel(positional.flag)
    if (merged[key] !== undefined && merged[key] !== word)
      throw new CliError(
        'usage',
        `The ${positional.name} was given twice: as ${word} and as --${positional.flag} ${String(merged[key])}.`,
        {
          hint: 'Give it once.',
        },
      )
    merged[key] = word
  })
  return merged
}

/** Flags whose value may be `-`: standard input can be read once only. */
function stdinFlag(spec: CommandSpec, args: Args): string | undefined {
  const names = ['json', ...spec.options.filter((o) => o.file).map((o) => o.name)]
  return names.find((name) => args[camel(name)] === '-')
}

function globalsOf(spec: CommandSpec, args: Args, env: CliEnvironment): Globals {
  const jq = args.jq as string | undefined
  const format = jq !== undefined ? 'json' : ((args.format as string | undefined) ?? env.format ?? 'text')
  if (format !== 'json' && format !== 'text')
    throw new CliError(
      'usage',
      `${args.format === undefined ? 'AGENT_SERVICE_FORMAT' : '--format'} must be json or text, not ${JSON.stringify(format)}.`,
    )
  if (args.token === '') throw new CliError('usage', '--token was given an empty value.')
  const fromStdin = stdinFlag(spec, args)
  if (args.tokenStdin === true && fromStdin)
    throw new CliError('usage', `--token-stdin and --${fromStdin} - both want standard input.`, {
      hint: 'Pass the token in AGENT_SERVICE_TOKEN, or the content from a file.',
    })
  const fields =
    typeof args.fields === 'string'
      ? args.fields
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean)
      : undefined
  if (fields?.length === 0) throw new CliError('usage', '--fields needs at least one field name.', { hint: 'e.g. --fields id,url' })
  return {
    baseUrl: ((args.baseUrl as string | undefined) ?? env.baseUrl ?? defaultBaseUrl).replace(/\/+$/, ''),
    webUrl: ((args.webUrl as string | undefined) ?? env.webUrl)?.replace(/\/+$/, ''),
    token: args.token as string | undefined,
    tokenStdin: args.tokenStdin === true,
    format,
    ndjson: args.ndjson === true,
    quiet: args.quiet === true,
    input: args.input !== false && !env.noInput,
    debug: args.debug === true || env.debug,
    dryRun: args.dryRun === true,
    yes: args.yes === true,
    color: args.color !== false && !env.noColor,
    fields,
    jq,
  }
}

/** The process's real streams. */
export function processIo(): Io {
  const { isatty } = builtin<typeof import('node:tty')>('node:tty')
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    // Asked of the descriptors: `process.stdin.isTTY` would make the stdin stream (and load what it needs) for a command that never reads it.
    stdinIsTty: isatty(0),
    stdoutIsTty: isatty(1),
    stderrIsTty: isatty(2),
    ...(isatty(1) && process.stdout.columns > 0 ? { stdoutColumns: process.stdout.columns } : {}),
    readStdin: async () => {
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
    },
    onInterrupt: (listener) => {
      process.once('SIGINT', listener)
      return () => process.off('SIGINT', listener)
    },
  }
}

function contextFor(spec: CommandSpec, globals: Globals, env: CliEnvironment, io: Io): CommandContext {
  let token: Promise<ResolvedToken> | null = null
  let client: QuireClient | null = null
  const interactive = globals.input && io.stdinIsTty && !globals.tokenStdin
  const context: CommandContext = {
    spec,
    globals,
    env,
    io,
    interactive,
    token: () => {
      token ??= resolveToken(globals, env, io)
      return token
    },
    async client() {
      if (client) return client
      // An operation open to everyone (health) needs no credential: the store is not even read.
      const anonymous = spec.operation !== null && operations[spec.operation].action === null
      client = cliClient(globals, io, anonymous ? null : (await context.token()).token)
      return client
    },
    // For people: not with --quiet, and not in JSON mode, where standard error is kept to the
    // one JSON error line a failure writes.
    progress(message) {
      if (!globals.quiet && globals.format !== 'json') io.stderr(`${message}\n`)
    },
    async confirm(question) {
      if (!interactive) return false
      const { createInterface } = await import('node:readline/promises')
      const rl = createInterface({ input: process.stdin, output: process.stderr })
      try {
        return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
      } finally {
        rl.close()
      }
    },
    artifactId: (reference) => resolveArtifactId(() => context.client(), reference),
    artifact: (reference) => resolveArtifact(() => context.client(), reference),
  }
  return context
}

/** `/body/expiresAt` → the flag that fills it (`--expires-at`), or the pointer when no flag does. */
function flagOf(spec: CommandSpec | null, pointer: string): string {
  const target = pointer.replace(/^\//, '').split('/').join('.')
  const option = spec?.options.find((o) => o.to === target)
  return option ? `--${option.name}` : pointer
}

/** The list command beside a command (`artifact get` → `artifact list`), for a not-found hint. */
function listCommandOf(spec: CommandSpec | null, detail: string): string | undefined {
  if (!spec || spec.path.length < 2) return undefined
  if (/\bversion\b/i.test(detail) && spec.positionals?.some((p) => p.kind === 'artifact'))
    return 'quire artifact versions ARTIFACT lists its versions'
  const list = commandEntries.find((c) => c.path[0] === spec.path[0] && c.path[1] === 'list')
  // A list's own not-found (`artifact list --project`) names what it looked for: no hint to itself.
  return list && list.path.join(' ') !== spec.path.join(' ') ? `quire ${list.path.join(' ')} shows what you can see` : undefined
}

/** What to do after a version conflict: see what changed (when the credential may read it), merge, send the new version. */
function conflictHint(problem: Record<string, unknown>, named: string | undefined): string {
  const retry = `send --expected-latest-version ${String(problem.latestVersion)}`
  const withheld = (problem.diffWithheld as { detail?: unknown } | undefined)?.detail
  if (typeof withheld === 'string') return `${withheld} Merge what you know of the changes, and ${retry}.`
  return `See what changed with quire artifact changes ${named ?? 'ARTIFACT'} --since ${String(problem.expectedLatestVersion ?? 'N')}, merge, and ${retry}.`
}

/** The free slugs a refusal offers (a reserved or taken slug) as a next step, or undefined when it offers none. */
function suggestionsHint(problem: Record<string, unknown>): string | undefined {
  const free = Array.isArray(problem.suggestions) ? problem.suggestions.filter((s): s is string => typeof s === 'string') : []
  return free.length === 0 ? undefined : `Free instead: ${free.join(', ')}.`
}

/** An agent's missing scope: what it can do next (ask its person for the scope, or hand them the action). */
function handOffHint(problem: Record<string, unknown>): string | undefined {
  const handOff = problem.handOff as { kind?: unknown; url?: unknown; instruction?: unknown } | undefined
  if (typeof handOff?.instruction !== 'string' || typeof handOff.url !== 'string') return undefined
  return handOff.kind === 'person' ? `Relay to your person: ${handOff.instruction}` : handOff.instruction
}

/** Any failure as the CLI reports it: the server's words, in the command line's terms, with a next step. */
function asCliError(error: unknown, globals: Globals | null, spec: CommandSpec | null, named: string | undefined): CliError {
  if (error instanceof CliError) return error
  if (isQuireApiError(error)) {
    const exit = exitNameOf(error.code)
    const problem = error.problem as Record<string, unknown>
    const details: Record<string, unknown> = { status: error.status, ...(error.requestId ? { requestId: error.requestId } : {}) }
    for (const key of ['latestVersion', 'expectedLatestVersion', 'errors', 'suggestions', 'handOff'] as const)
      if (problem[key] !== undefined) details[key] = problem[key]
    const fieldErrors = (problem.errors as { path: string; message: string }[] | undefined) ?? []
    const message =
      error.code === 'validation_failed' && fieldErrors.length
        ? `Invalid input: ${fieldErrors.map((e) => `${flagOf(spec, e.path)} ${e.message}`).join('; ')}.`
        : error.detail || error.title
    const list = listCommandOf(spec, message)
    const suggestions = suggestionsHint(problem)
    const hint =
      handOffHint(problem) ??
      (exit === 'auth_required'
        ? 'Run `quire login`, or pass a token with --token-stdin or AGENT_SERVICE_TOKEN.'
        : error.code === 'version_conflict'
          ? conflictHint(problem, named)
          : error.code === 'precondition_required'
            ? 'Pass --expected-latest-version with the version you started from (quire artifact get shows the latest).'
            : suggestions
              ? suggestions
              : error.code === 'not_found' && list
                ? `${list}.`
                : error.code === 'validation_failed' && spec
                  ? `See quire ${spec.path.join(' ')} --help.`
                  : undefined)
    return new CliError(exit, message, { code: error.code, ...(hint ? { hint } : {}), details })
  }
  if (error instanceof QuireNetworkError) {
    return new CliError(error.kind === 'invalid_response' ? 'error' : 'unavailable', error.message, {
      code: error.kind === 'timeout' ? 'timeout' : 'unreachable',
      hint: `Is Quire running at ${globals?.baseUrl ?? defaultBaseUrl}? Set --base-url or AGENT_SERVICE_BASE_URL.`,
    })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new CliError('error', message, { code: 'internal', hint: globals?.debug ? undefined : 'Run again with --debug for details.' })
}

/** The output format as typed, before the flags are parsed (a usage error is reported in it). */
function formatAsTyped(argv: readonly string[], env: CliEnvironment): Globals['format'] {
  const at = argv.indexOf('--format')
  const typed = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--format='))?.slice('--format='.length)
  return (typed ?? env.format) === 'json' || argv.includes('--jq') ? 'json' : 'text'
}

/**
 * Runs `quire` with these arguments and returns the exit code. Everything the process needs
 * (streams, environment) comes in, so tests can run it in-process as well as in a child.
 */
export async function main(argv: readonly string[], io: Io = processIo(), rawEnv?: NodeJS.ProcessEnv): Promise<number> {
  const env = readEnvironment(rawEnv)
  let globals: Globals | null = null
  let spec: CommandSpec | null = null
  let named: string | undefined
  const noColor = env.noColor || argv.includes('--no-color')
  try {
    const reading = read(argv, tree(commandEntries))
    // `quire --base-url … --version`: the client's version (a command's `--version` is its own).
    if (argv.includes('--version') && !reading.help && !reading.node.spec) {
      io.stdout(`${cliVersion}\n`)
      return 0
    }
    // `quire`, `quire artifact` and any `--help`: the help of what the words reached.
    if (reading.help || !reading.node.spec) {
      // Help reads every row it lists (and the contract's scopes): loaded only for help.
      const { helpText } = await import('./help.ts')
      io.stdout(helpText(reading.node))
      return 0
    }
    spec = reading.node.spec
    const args = checkedArgs(spec, withPositionals(spec, await parseFlags(spec, reading.rest), reading.positionals))
    named = typeof args.artifactId === 'string' ? args.artifactId : undefined
    globals = globalsOf(spec, args, env)
    const render = renderer(globals, io, { color: io.stdoutIsTty && globals.color })
    const context = contextFor(spec, globals, env, io)
    const handler = spec.handler ? await handlers[spec.handler]() : callOperation
    const result: CommandResult = await handler(context, args)
    await render.result(spec, result)
    return 0
  } catch (error) {
    const failure = asCliError(error, globals, spec, named)
    const format = globals?.format ?? formatAsTyped(argv, env)
    const render = renderer({ format } as Globals, io, { color: io.stderrIsTty && !noColor })
    const secrets = knownSecrets(argv, env)
    render.error(failure, secrets)
    if ((globals?.debug ?? env.debug) && error instanceof Error && error.stack) io.stderr(`${redact(error.stack, secrets)}\n`)
    return exitCodes[failure.exit].code
  }
}

/** The secrets this run was given, to be cut out of anything it prints. */
function knownSecrets(argv: readonly string[], env: CliEnvironment): string[] {
  const at = argv.indexOf('--token')
  return [env.token, at >= 0 ? argv[at + 1] : undefined, argv.find((a) => a.startsWith('--token='))?.slice('--token='.length)].filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  )
}
