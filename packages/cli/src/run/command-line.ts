import { globalFlags } from '../registry/globals.ts'
import type { CommandEntry, CommandSpec, OptionSpec } from '../registry/types.ts'
import { CliError } from './cli-error.ts'

/**
 * Reading the command line before yargs parses the flags: which command the words name, and
 * whether every flag is one that command knows. Both errors echo what was typed and suggest the
 * closest name, and come before any other check (a misspelt flag is not reported as a missing one).
 */

/** A node of the command tree: `artifact` holds `get`, `access` holds `get` and `set`. */
export interface Node {
  readonly path: readonly string[]
  /** The subcommands by their names (an alias is not a child of its own: help and completion list each command once). */
  readonly children: Map<string, Node>
  /** The other words that name this command (`view` for `artifact get`). */
  readonly aliases: readonly string[]
  /** The subcommand a word names: its name or one of its aliases. */
  child(word: string): Node | undefined
  /** The command these words name (made on first use), or none for a group. */
  readonly spec: CommandSpec | undefined
}

class CommandNode implements Node {
  readonly path: readonly string[]
  readonly children = new Map<string, CommandNode>()
  /** The children's aliases, to the child. */
  readonly aliased = new Map<string, CommandNode>()
  entry: CommandEntry | undefined
  constructor(path: readonly string[]) {
    this.path = path
  }
  get aliases(): readonly string[] {
    return this.entry?.aliases ?? []
  }
  child(word: string): CommandNode | undefined {
    return this.children.get(word) ?? this.aliased.get(word)
  }
  get spec(): CommandSpec | undefined {
    return this.entry?.spec()
  }
}

/** An alias that is another command's name or alias would make one word mean two commands (a registry mistake). */
const aliasClash = (node: Node, alias: string) => new Error(`quire ${node.path.join(' ')}: its alias "${alias}" names another command too`)

/** The tree of the commands' words; a command's row is made only when its node is asked for it. */
export function tree(rows: readonly (CommandEntry | CommandSpec)[]): Node {
  const root = new CommandNode([])
  const parents = new Set<CommandNode>()
  for (const row of rows) {
    let node = root
    let parent = root
    for (const name of row.path) {
      let next = node.children.get(name)
      if (!next) {
        next = new CommandNode([...node.path, name])
        node.children.set(name, next)
      }
      parent = node
      node = next
    }
    node.entry = 'spec' in row ? row : { path: row.path, ...(row.aliases ? { aliases: row.aliases } : {}), spec: () => row }
    for (const alias of row.aliases ?? []) {
      if (parent.aliased.has(alias)) throw aliasClash(node, alias)
      parent.aliased.set(alias, node)
    }
    parents.add(parent)
  }
  for (const parent of parents) for (const [alias, node] of parent.aliased) if (parent.children.has(alias)) throw aliasClash(node, alias)
  return root
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1)
      ;(d[i] as number[])[j] = best
    }
  return at(a.length, b.length)
}

/** The candidate closest to what was typed, when it is close enough to be a typo (or what was typed starts it). */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  let best: { name: string; score: number } | undefined
  for (const name of candidates) {
    const score = name.startsWith(typed) && typed.length >= 2 ? 0.5 : distance(typed, name)
    if (!best || score < best.score) best = { name, score }
  }
  return best && best.score <= Math.max(2, Math.floor(typed.length / 3)) ? best.name : undefined
}

/** Words people reach for from other tools, to the command they mean (suggestions only). */
const synonyms: Readonly<Record<string, string>> = {
  view: 'get',
  show: 'get',
  cat: 'content',
  ls: 'list',
  rm: 'delete',
  remove: 'delete',
  new: 'create',
  add: 'create',
  browse: 'open',
  log: 'versions',
  history: 'versions',
}

/** What the words of the command line name. */
export interface Reading {
  /** The deepest node the words reached (the root for none). */
  readonly node: Node
  /** Words after the command's name: its positionals. */
  readonly positionals: readonly string[]
  /** The arguments without the command's words, for yargs. */
  readonly rest: readonly string[]
  readonly help: boolean
}

/** Flags every command has, besides its own: the global ones, and help. */
function globalFlagNames(): Map<string, boolean> {
  const names = new Map<string, boolean>()
  for (const flag of globalFlags) names.set(flag.name, flag.type === 'boolean')
  names.set('help', true)
  return names
}

/** The flags a command knows (name → whether it is boolean), globals included. */
export function knownFlags(spec: CommandSpec | undefined): Map<string, boolean> {
  const names = globalFlagNames()
  // `--version` alone is the client's; after a command, only one that has a `--version` of its own takes it.
  if (spec) names.delete('version')
  for (const option of spec?.options ?? []) names.set(option.name, option.type === 'boolean')
  if (spec?.destructive) names.set('yes', true)
  return names
}

const short: Readonly<Record<string, string>> = { h: 'help', y: 'yes' }

/** The command takes every word left as one value (`quire search deploy -draft`). */
const takesWords = (spec: CommandSpec | undefined) => spec?.positionals?.at(-1)?.kind === 'words'

function commandName(path: readonly string[]): string {
  return ['quire', ...path].join(' ')
}

/**
 * Walks the words to a command, and checks every flag against it. Throws a usage error naming
 * the unknown command or flag, with the closest known one.
 */
export function read(argv: readonly string[], root: Node): Reading {
  let node = root
  const positionals: string[] = []
  const rest: string[] = []
  let help = false
  const flags: string[] = []
  // The flags of the node reached so far, worked out again only when a word moves down the tree.
  let known = knownFlags(node.spec)
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string
    if (word === '--') {
      positionals.push(...argv.slice(i + 1))
      rest.push(...argv.slice(i))
      break
    }
    // A command that takes the words left (`quire search`) takes `-draft` as one of them (an
    // excluded word): a single dash names no flag of quire's but `-h` and, where it applies, `-y`.
    if (takesWords(node.spec) && /^-[^-]/.test(word) && !known.has(short[word.slice(1)] ?? '')) {
      positionals.push(word)
      continue
    }
    if (word.startsWith('-') && word !== '-') {
      const name = word.startsWith('--') ? (word.slice(2).split('=')[0] ?? '') : (short[word.slice(1)] ?? word.slice(1))
      if (name === 'help') help = true
      flags.push(name)
      rest.push(word)
      // A value flag takes the next word as its value (even one that starts with a dash).
      const boolean = known.get(name) ?? known.get(name.replace(/^no-/, ''))
      if (boolean === false && !word.includes('=') && i + 1 < argv.length) rest.push(argv[++i] as string)
      continue
    }
    const child = node.spec ? undefined : node.child(word)
    if (child) {
      node = child
      known = knownFlags(node.spec)
      continue
    }
    if (!node.spec && !help) {
      const typed = commandName([...node.path, word])
      const synonym = synonyms[word]
      const suggestion = synonym && node.children.has(synonym) ? synonym : closest(word, node.children.keys())
      throw new CliError('usage', `Unknown command "${typed}".`, {
        hint: suggestion
          ? `Did you mean "${commandName([...node.path, suggestion])}"?`
          : `${commandName(node.path)} --help lists the ${node.path.length ? 'subcommands' : 'commands'}.`,
      })
    }
    positionals.push(word)
    rest.push(word)
  }
  if (!help) checkFlags(flags, node, known)
  return { node, positionals, rest, help }
}

function checkFlags(flags: readonly string[], node: Node, known: ReadonlyMap<string, boolean>): void {
  for (const name of flags) {
    if (known.has(name) || (name.startsWith('no-') && known.get(name.slice(3)) === true)) continue
    const suggestion = closest(name, known.keys())
    const where = node.spec ? ` for "${commandName(node.path)}"` : ''
    throw new CliError('usage', `Unknown flag --${name}${where}.`, {
      hint: suggestion ? `Did you mean --${suggestion}?` : `${commandName(node.path)} --help lists its flags.`,
    })
  }
}

/** A flag as it is typed, with its value's kind: `--artifact-id <string>`. */
export function flagUsage(option: Pick<OptionSpec, 'name' | 'type' | 'file' | 'format' | 'choices'>): string {
  if (option.type === 'boolean') return `--${option.name}`
  const value = option.file
    ? 'file'
    : option.type === 'array'
      ? 'a,b'
      : option.choices
        ? option.choices.length <= 4
          ? option.choices.join('|')
          : 'choice'
        : option.type === 'number'
          ? 'n'
          : option.format === 'date-time'
            ? 'time'
            : 'string'
  return `--${option.name} <${value}>`
}
