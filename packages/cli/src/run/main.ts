import { createInterface } from 'node:readline/promises'
import { isQuireApiError, type QuireClient, QuireNetworkError } from '@quire/client'
import { operations } from '@quire/core/contract'
import yargs, { type Argv } from 'yargs'
import { type CliEnvironment, readEnvironment } from '../config.ts'
import { resolveToken } from '../credentials/token-source.ts'
import { commands } from '../registry/commands.ts'
import { defaultBaseUrl, globalFlags } from '../registry/globals.ts'
import type { CommandSpec } from '../registry/types.ts'
import { callOperation } from './call-operation.ts'
import { cliClient } from './cli-client.ts'
import { CliError } from './cli-error.ts'
import type { Args, CommandContext, CommandResult, Globals, Io, ResolvedToken } from './context.ts'
import { exitCodes, exitNameOf } from './exit-codes.ts'
import { handlers } from './handlers.ts'
import { renderer } from './output.ts'
import { redact } from './redact.ts'

/** A node of the command tree: `artifact` holds `get`, `access` holds `get` and `set`. */
interface Node {
  readonly path: readonly string[]
  readonly children: Map<string, Node>
  spec?: CommandSpec
}

function tree(specs: readonly CommandSpec[]): Node {
  const root: Node = { path: [], children: new Map() }
  for (const spec of specs) {
    let node = root
    for (const name of spec.path) {
      let next = node.children.get(name)
      if (!next) {
        next = { path: [...node.path, name], children: new Map() }
        node.children.set(name, next)
      }
      node = next
    }
    node.spec = spec
  }
  return root
}

const groupSummaries: Record<string, string> = {
  auth: 'Credentials: where the token comes from',
  profile: 'Your profile',
  keys: 'API keys',
  agent: 'The agents you claimed (auth.md)',
  project: 'Projects',
  workspace: 'Team workspaces, members and invitations',
  artifact: 'Artifacts and their versions',
  access: "An artifact's access settings",
  path: 'Find projects and artifacts by path',
  share: 'Share links',
  audit: 'The audit trail',
}

/** Numbers on the command line are whole numbers (versions, limits); anything else is a usage error. */
function wholeNumber(flag: string) {
  return (value: unknown) => {
    const number = typeof value === 'number' ? value : Number(String(value).trim() === '' ? Number.NaN : value)
    if (!Number.isSafeInteger(number)) throw new CliError('usage', `--${flag} takes a whole number, not ${JSON.stringify(String(value))}.`)
    return number
  }
}

/** The yargs options of a command, from its registry row; destructive commands get --yes. */
function commandOptions(y: Argv, spec: CommandSpec): Argv {
  for (const option of spec.options) {
    y.option(option.name, {
      type: option.type === 'array' ? 'string' : option.type,
      ...(option.type === 'array' ? { array: true } : {}),
      describe: option.description,
      demandOption: option.required === true,
      ...(option.choices ? { choices: [...option.choices] } : {}),
      ...(option.type === 'number' ? { coerce: wholeNumber(option.name) } : {}),
      // A value flag always takes the next word as its value, even `-` (standard input).
      ...(option.type === 'string' || option.type === 'number' ? { requiresArg: true, nargs: 1 } : {}),
    })
  }
  if (spec.destructive) y.option('yes', { type: 'boolean', alias: 'y', describe: 'Do it without asking' })
  for (const example of spec.examples ?? []) y.example(example, '')
  return y
}

/** Builds the nested commands under a node; each leaf records its spec and arguments when it runs. */
function register(y: Argv, node: Node, run: (spec: CommandSpec, args: Args) => void): Argv {
  for (const [name, child] of node.children) {
    if (child.spec && child.children.size === 0) {
      const spec = child.spec
      y.command(
        name,
        spec.summary,
        (inner) => commandOptions(inner, spec),
        (args) => run(spec, args),
      )
    } else {
      y.command(name, groupSummaries[name] ?? name, (inner) =>
        register(inner, child, run).demandCommand(1, `Name a subcommand (quire ${child.path.join(' ')} --help lists them).`),
      )
    }
  }
  return y
}

/** The parser for `argv`, built from the registry (also used by the help/schema agreement test). */
export function parser(argv: readonly string[], run: (spec: CommandSpec, args: Args) => void = () => {}): Argv {
  const y = yargs([...argv])
    .scriptName('quire')
    .version(false)
    .help('help')
    .alias('help', 'h')
    .strict()
    .recommendCommands()
    .demandCommand(1, 'Name a command (quire --help lists them).')
    .parserConfiguration({ 'camel-case-expansion': true })
    .completion('completion', 'Print a shell completion script (bash, zsh)')
    .epilogue(
      `Exit codes: ${Object.values(exitCodes)
        .map((e) => e.code)
        .join(', ')} (see quire schema). Docs: https://github.com/quire/quire`,
    )
    .exitProcess(false)
  for (const flag of globalFlags) {
    if (flag.name === 'version') continue
    y.option(flag.name, {
      type: flag.type,
      global: true,
      describe: flag.description + (flag.env ? ` [env ${flag.env}]` : ''),
      ...(flag.choices ? { choices: [...flag.choices] } : {}),
    })
  }
  // Shown as `--no-input`, as typed; yargs' boolean negation parses that as `input: false`, so
  // `input` itself is declared too (hidden), or strict mode would refuse it.
  y.option('input', { type: 'boolean', global: true, hidden: true })
  y.option('version', { type: 'boolean', global: false, describe: 'Print the client version' })
  return register(y, tree(commands), run)
}

/** Flags whose value may be `-`: standard input can be read once only. */
const stdinFlags = ['json', 'file'] as const

function globalsOf(args: Args, env: CliEnvironment): Globals {
  const format = (args.format as string | undefined) ?? env.format ?? 'text'
  if (format !== 'json' && format !== 'text')
    throw new CliError('usage', `AGENT_SERVICE_FORMAT must be json or text, not ${JSON.stringify(format)}.`)
  if (args.token === '') throw new CliError('usage', '--token was given an empty value.')
  const stdinFlag = stdinFlags.find((flag) => args[flag] === '-')
  if (args.tokenStdin === true && stdinFlag)
    throw new CliError('usage', `--token-stdin and --${stdinFlag} - both want standard input.`, {
      hint: 'Pass the token in AGENT_SERVICE_TOKEN, or the content from a file.',
    })
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
  }
}

/** The process's real streams. */
export function processIo(): Io {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdinIsTty: process.stdin.isTTY === true,
    stdoutIsTty: process.stdout.isTTY === true,
    stderrIsTty: process.stderr.isTTY === true,
    readStdin: async () => {
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
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
      const rl = createInterface({ input: process.stdin, output: process.stderr })
      try {
        return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
      } finally {
        rl.close()
      }
    },
  }
  return context
}

/** Any failure as the CLI reports it. */
function asCliError(error: unknown, globals: Globals | null): CliError {
  if (error instanceof CliError) return error
  if (isQuireApiError(error)) {
    const exit = exitNameOf(error.code)
    const problem = error.problem as Record<string, unknown>
    const details: Record<string, unknown> = { status: error.status, ...(error.requestId ? { requestId: error.requestId } : {}) }
    for (const key of ['latestVersion', 'expectedLatestVersion', 'errors'] as const)
      if (problem[key] !== undefined) details[key] = problem[key]
    const hint =
      exit === 'auth_required'
        ? 'Run `quire login`, or pass a token with --token-stdin or AGENT_SERVICE_TOKEN.'
        : error.code === 'version_conflict'
          ? `The artifact is at version ${String(problem.latestVersion)}; fetch it, merge, and send expectedLatestVersion ${String(problem.latestVersion)}.`
          : error.code === 'precondition_required'
            ? 'Include expectedLatestVersion (the version you started from) in the body.'
            : undefined
    return new CliError(exit, error.detail || error.title, { code: error.code, ...(hint ? { hint } : {}), details })
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

/**
 * Runs `quire` with these arguments and returns the exit code. Everything the process needs
 * (streams, environment) comes in, so tests can run it in-process as well as in a child.
 */
export async function main(argv: readonly string[], io: Io = processIo(), rawEnv?: NodeJS.ProcessEnv): Promise<number> {
  const env = readEnvironment(rawEnv)
  let chosen: { spec: CommandSpec; args: Args } | null = null
  let globals: Globals | null = null
  let helpText = ''
  // Before parsing succeeds (a usage error), the format is read off the arguments as typed.
  const formatAt = argv.indexOf('--format')
  const formatGuess: Globals['format'] =
    (formatAt >= 0 ? argv[formatAt + 1] : argv.find((a) => a.startsWith('--format='))?.slice('--format='.length)) === 'json' ||
    (formatAt < 0 && !argv.some((a) => a.startsWith('--format=')) && env.format === 'json')
      ? 'json'
      : 'text'
  const fallbackGlobals = { format: formatGuess } as Globals
  try {
    const y = parser(argv, (spec, args) => {
      chosen = { spec, args }
    })
    // Anything that fails while parsing (yargs' checks, a coerce refusing a value) is a usage error.
    y.fail((message, error) => {
      if (error instanceof CliError) throw error
      throw new CliError('usage', usageMessage(message ?? error?.message ?? 'Invalid usage.'), {
        hint: 'See quire --help, or quire <command> --help.',
      })
    })
    await y.parseAsync([...argv], {}, (_err, _argv, output) => {
      helpText = output
    })
    if (helpText) {
      io.stdout(helpText.endsWith('\n') ? helpText : `${helpText}\n`)
      return 0
    }
    const picked = chosen as { spec: CommandSpec; args: Args } | null
    if (!picked) return 0
    globals = globalsOf(picked.args, env)
    const color = io.stdoutIsTty && !env.noColor
    const render = renderer(globals, io, { color })
    const context = contextFor(picked.spec, globals, env, io)
    const handler = picked.spec.handler ? await handlers[picked.spec.handler]() : callOperation
    const result: CommandResult = await handler(context, picked.args)
    await render.result(picked.spec, result)
    return 0
  } catch (error) {
    const failure = asCliError(error, globals)
    const render = renderer(globals ?? fallbackGlobals, io, { color: io.stderrIsTty && !env.noColor })
    render.error(failure)
    if ((globals?.debug ?? env.debug) && error instanceof Error && error.stack) io.stderr(`${redact(error.stack)}\n`)
    return exitCodes[failure.exit].code
  }
}

/** yargs' words, in the CLI's terms: flags are named as they are typed. */
function usageMessage(message: string): string {
  const missing = /^Missing required arguments?: (.+)$/m.exec(message)
  if (missing) {
    const flags = (missing[1] ?? '').split(', ').map((f) => `--${f}`)
    return `Missing required ${flags.length > 1 ? 'flags' : 'flag'} ${flags.join(', ')}.`
  }
  const unknown = /^Unknown arguments?: (.+)$/m.exec(message)
  if (unknown) return `Unknown ${message.includes('arguments:') ? 'arguments' : 'argument'}: ${unknown[1]}.`
  const valueless = /^Not enough arguments following: (.+)$/m.exec(message)
  if (valueless) return `--${valueless[1]} needs a value.`
  if (message.startsWith('Did you mean')) return `Unknown command. ${message}`
  return message
}
