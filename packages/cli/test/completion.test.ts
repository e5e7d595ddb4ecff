/**
 * The scripts of `quire completion`, generated from the real command rows and run by the real
 * shells: bash's completion function called the way readline calls it, and once through readline
 * itself; zsh's completion system in an interactive zsh on a pseudo-terminal (zsh/zpty); fish's
 * `complete -C`. zsh and fish come from tooling/scripts/test-prerequisites.sh: a missing shell
 * fails these tests, naming the apt-get command.
 */
import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnTracked } from '@quire/testing/processes'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { completionScript, completionShells } from '../src/commands/completion.ts'
import { commands } from '../src/registry/commands.ts'
import { globalFlags } from '../src/registry/globals.ts'
import { commandsTimeout, finish } from './quire-process.ts'

let root = ''
/** The working directory of every shell: files for the flags that take one. */
let work = ''
const script = { bash: '', zsh: '', fish: '' }
let env: Record<string, string> = {}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'quire-completion-'))
  work = join(root, 'work')
  await mkdir(join(work, 'docs'), { recursive: true })
  await writeFile(join(work, 'plan.md'), '# Plan\n')
  await writeFile(join(work, 'notes.txt'), 'notes\n')
  // zsh finds its script by name in $fpath: _quire.
  await mkdir(join(root, 'zsh'))
  script.bash = join(root, 'quire.bash')
  script.zsh = join(root, 'zsh', '_quire')
  script.fish = join(root, 'quire.fish')
  for (const shell of completionShells) await writeFile(script[shell], completionScript(shell, commands, globalFlags))
  const home = join(root, 'home')
  await mkdir(home)
  env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    LANG: 'C.UTF-8',
    TERM: 'xterm',
  }
})
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true })
})

/** Fails, naming the install command, when the shell is not on this machine. */
function need(shell: 'bash' | 'zsh' | 'fish'): void {
  if (spawnSync(shell, ['-c', 'exit 0']).error)
    throw new Error(
      `${shell} is not installed, and the completion tests run it: apt-get install -y ${shell} (tooling/scripts/test-prerequisites.sh installs it)`,
    )
}

/** Runs a shell in `work` to its end (one wait: packages/testing/src/waits.ts) and returns its output. */
async function run(command: string, args: readonly string[]): Promise<string> {
  const child = spawnTracked(command, args, { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] })
  const done = await finish(child)
  if (done.code !== 0) throw new Error(`${command} exited ${done.code}: ${done.stderr}${done.stdout}`)
  return done.stdout
}

/** Every group of the command tree, as words ('artifact access'). */
const groups = [...new Set(commands.flatMap((c) => c.path.slice(1).map((_, i) => c.path.slice(0, i + 1).join(' '))))]
/** The subcommands of a group ('' is quire itself), in the rows' order, each command's aliases after its name. */
function subcommandsOf(group: string): string[] {
  const depth = group === '' ? 0 : group.split(' ').length
  const inGroup = commands.filter((c) => c.path.length > depth && c.path.slice(0, depth).join(' ') === group)
  return [...new Set(inGroup.flatMap((c) => [c.path[depth] ?? '', ...(c.path.length === depth + 1 ? (c.aliases ?? []) : [])]))]
}
/** A shell's output for several lines, each after a line `<case>`: the lines it printed for each. */
const cases = (out: string) =>
  out
    .split('<case>\n')
    .slice(1)
    .map((found) => found.split('\n').filter(Boolean))
/** The line that asks for a group's subcommands. */
const lineAt = (group: string) => (group ? `quire ${group} ` : 'quire ')

describe('bash', { timeout: commandsTimeout }, () => {
  /**
   * The replies of `_quire` for each line typed so far, the cursor at its end, in one bash. The
   * function reads COMP_LINE and COMP_POINT; COMP_WORDS (split here at blanks only) and COMP_CWORD
   * are set as well.
   */
  async function completeEach(lines: readonly string[]): Promise<string[][]> {
    need('bash')
    const call = `source "$1"; shift
for line; do
  COMP_LINE=$line COMP_POINT=\${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *' ' ]] && COMP_WORDS+=('')
  COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
  _quire quire "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
  printf '<case>\\n'; printf '%s\\n' "\${COMPREPLY[@]}"
done`
    return cases(await run('bash', ['--norc', '--noprofile', '-c', call, 'bash', script.bash, ...lines]))
  }
  const complete = async (line: string) => (await completeEach([line]))[0] ?? []

  it('completes command words level by level, after global flags and their values too', async () => {
    expect(await complete('quire art')).toEqual(['artifact'])
    expect(await complete('quire artifact ')).toEqual(expect.arrayContaining(['content', 'diff', 'access', 'get', 'update']))
    expect(await complete('quire artifact access ')).toEqual(['get', 'set'])
    expect(await complete('quire --format json --base-url http://x art')).toEqual(['artifact'])
    // An alias is a word like its command's name, and takes its flags.
    expect((await complete('quire artifact v')).sort()).toEqual(['versions', 'view'])
    expect(await complete('quire artifact view --art')).toEqual(['--artifact-id'])
    expect(await complete('quire artifact view art_1 ')).toContain('--artifact-id')
    const all = ['', ...groups]
    const offered = await completeEach(all.map(lineAt))
    for (const [i, group] of all.entries()) expect(offered[i], group).toEqual(subcommandsOf(group))
  })

  it("offers the command's flags and the global ones, --yes where it applies, each once", async () => {
    expect(await complete('quire artifact get --art')).toEqual(['--artifact-id'])
    expect(await complete('quire --no-i')).toEqual(['--no-input'])
    const flags = await complete('quire artifact delete art_1 --')
    expect(flags).toEqual(expect.arrayContaining(['--artifact-id', '--yes', '--base-url', '--format', '--no-input', '--help']))
    expect(await complete('quire artifact get art_1 --')).not.toContain('--yes')
    // `artifact content` has a --version of its own (a number), which replaces the global switch.
    expect(await complete('quire artifact content art_1 --ver')).toEqual(['--version'])
    expect(await complete('quire artifact content art_1 --version ')).toEqual([])
    expect((await complete('quire artifact content art_1 --')).filter((flag) => flag === '--version')).toHaveLength(1)
    // After a command and its positional arguments, an empty word offers the flags; in a positional slot, nothing.
    expect(await complete('quire artifact get art_1 ')).toContain('--artifact-id')
    expect(await complete('quire artifact get ')).toEqual([])
    const offered = await completeEach(commands.map((c) => `quire ${c.path.join(' ')} --`))
    for (const [i, command] of commands.entries())
      expect(offered[i], command.path.join(' ')).toEqual(expect.arrayContaining(command.options.map((o) => `--${o.name}`)))
  })

  it('completes the choices of a flag, also after = and in words readline splits at : or =', async () => {
    expect(await complete('quire --format ')).toEqual(['json', 'text'])
    expect(await complete('quire share create --role ')).toEqual(['viewer', 'editor'])
    // Readline replaces only what follows the last COMP_WORDBREAKS character (= and : among them).
    expect(await complete('quire --format=j')).toEqual(['json'])
    expect(await complete('quire keys create --scopes artifacts:access:')).toEqual(['read', 'write'])
  })

  it('completes file names after file flags and after the @ of --json; nothing after other value flags', async () => {
    expect((await complete('quire push --file ')).sort()).toEqual(['docs', 'notes.txt', 'plan.md'])
    expect(await complete('quire artifact update art_1 --content-file pl')).toEqual(['plan.md'])
    // @ is in COMP_WORDBREAKS, but readline keeps it in the word it replaces.
    expect(await complete('quire artifact create --json @pl')).toEqual(['@plan.md'])
    expect(await complete('quire artifact create --json ')).toEqual([])
    expect(await complete('quire artifact get --artifact-id ')).toEqual([])
    expect(await complete('quire --base-url ')).toEqual([])
    expect(await complete('quire --token ')).toEqual([])
  })

  it('completes through readline in an interactive bash', async () => {
    need('bash')
    need('zsh')
    // `quire` is a function printing its arguments: TAB completes the line, Enter runs it.
    const setup = join(root, 'bash-setup.sh')
    await writeFile(setup, `source ${script.bash}\nquire() { printf '[[%s]]\\n' "$*"; }\nPS1='$ '\necho READY\n`)
    const driver = `zmodload zsh/zpty
zpty shell 'bash --norc --noprofile -i'
zpty -w shell "source \${(q)1}"
zpty -r shell line '*READY*'
for input in "\${@:2}"; do
  zpty -w -n shell "$input"$'\\t'
  zpty -w -n shell $'\\r'
  zpty -r shell line '*\\[\\[*\\]\\]*'
  print -r -- "\${\${line##*\\[\\[}%%\\]\\]*}"
done
zpty -d shell`
    const inputs = ['quire art', 'quire --format=j', 'quire artifact create --json @pl', 'quire keys create --scopes artifacts:access:w']
    const lines = (await run('zsh', ['-f', '-c', driver, 'zsh', setup, ...inputs])).split('\n').filter(Boolean)
    expect(lines).toEqual(['artifact', '--format=json', 'artifact create --json @plan.md', 'keys create --scopes artifacts:access:write'])
  })
})

describe('zsh', { timeout: commandsTimeout }, () => {
  /**
   * What zsh's completion system offers for a line typed so far, as [word, description] pairs: an
   * interactive zsh on a pseudo-terminal, with compinit and the script found as _quire in $fpath
   * (or `source`d after compinit), TAB pressed once, each candidate printed by a wrapper of
   * `compadd` instead of being added.
   */
  async function complete(line: string, load: 'fpath' | 'source' = 'fpath'): Promise<[string, string][]> {
    need('zsh')
    const out = await run('zsh', ['-f', '-c', zshDriver, 'zsh', join(root, 'zsh-setup.zsh'), load, line])
    return [...out.matchAll(/<hit>(.*?)<desc>(.*?)\r?\n/g)].map((m) => [m[1] ?? '', m[2] ?? ''])
  }
  const words = async (line: string) => (await complete(line)).map(([word]) => word)
  const zshDriver = `zmodload zsh/zpty
zpty shell 'zsh -f -i'
zpty -w shell "QUIRE_LOAD=\${(q)2} source \${(q)1}"
zpty -r shell line '*READY*'
zpty -w -n shell "$3"$'\\t'
out=
while zpty -r shell line; do out+=$line; [[ $out == *'<end>'* ]] && break; done
zpty -d shell
print -r -- "$out"`

  beforeAll(async () => {
    // compadd is wrapped: it prints each match (with IPREFIX, the @ of @file) and its description.
    await writeFile(
      join(root, 'zsh-setup.zsh'),
      `PROMPT='' RPROMPT=''
stty columns 1000
if [[ $QUIRE_LOAD == fpath ]]; then
  fpath=(${join(root, 'zsh')} $fpath)
  autoload -Uz compinit && compinit -u -d ${join(root, 'zcompdump-fpath')}
else
  autoload -Uz compinit && compinit -u -d ${join(root, 'zcompdump-source')}
  source ${script.zsh}
fi
bindkey '^I' complete-word
zstyle ':completion:*' list-grouped false
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return; fi
  local -a __hits __dscr; local __d __i
  if (( $@[(I)-d] )); then
    __d=\${@[$(( \${@[(i)-d]} + 1 ))]}
    if [[ $__d == \\(* ]]; then eval "__dscr=$__d"; else __dscr=("\${(@P)__d}"); fi
  fi
  builtin compadd -A __hits -D __dscr "$@"
  for (( __i = 1; __i <= $#__hits; __i++ )); do
    print -r -- "<hit>$IPREFIX$__hits[__i]<desc>\${\${__dscr[__i]-}##$__hits[__i] #(-- |)}"
  done
}
_quire_test_end() { print -r -- '<end>'; exit }
comppostfuncs=(_quire_test_end)
print READY
`,
    )
  })

  it('is a #compdef script zsh -n accepts', async () => {
    need('zsh')
    await run('zsh', ['-n', script.zsh])
    expect(completionScript('zsh', commands, globalFlags).split('\n')[0]).toBe('#compdef quire')
  })

  it('completes command words level by level, with their descriptions', async () => {
    expect(await words('quire art')).toEqual(['artifact'])
    const artifact = await complete('quire artifact ')
    expect(artifact.map(([word]) => word)).toEqual(subcommandsOf('artifact'))
    const get = commands.find((c) => c.path.join(' ') === 'artifact get')
    expect(artifact).toContainEqual(['get', get?.summary])
    expect(artifact).toContainEqual(['view', `${get?.summary} (alias of get)`])
    expect(await words('quire artifact access ')).toEqual(['get', 'set'])
    expect(await words('quire --format json art')).toEqual(['artifact'])
    expect(await words('quire artifact view --art')).toEqual(['--artifact-id'])
  })

  it("offers the command's flags and the global ones", async () => {
    expect(await words('quire artifact get --art')).toEqual(['--artifact-id'])
    expect(await words('quire --no-i')).toEqual(['--no-input'])
    expect(await words('quire artifact delete --y')).toEqual(['--yes'])
    const flags = await words('quire artifact get art_1 --')
    expect(flags).toEqual(expect.arrayContaining(['--artifact-id', '--base-url', '--format', '--no-input', '--help']))
    expect(await complete('quire artifact content art_1 --ver')).toEqual([
      ['--version', commands.find((c) => c.path.join(' ') === 'artifact content')?.options.find((o) => o.name === 'version')?.description],
    ])
  })

  it('completes choices, file names after file flags and after the @ of --json, nothing after other value flags', async () => {
    expect(await words('quire --format ')).toEqual(['json', 'text'])
    expect(await words('quire share create --role ')).toEqual(['viewer', 'editor'])
    expect(await words('quire keys create --scopes artifacts:access:')).toEqual(['artifacts:access:read', 'artifacts:access:write'])
    expect((await words('quire push --file ')).sort()).toEqual(['docs', 'notes.txt', 'plan.md'])
    expect(await words('quire artifact create --json @pl')).toEqual(['@plan.md'])
    expect(await words('quire artifact create --json ')).toEqual([])
    expect(await words('quire artifact get --artifact-id ')).toEqual([])
    expect(await words('quire --base-url ')).toEqual([])
  })

  it('works sourced after compinit as well as from $fpath', async () => {
    expect((await complete('quire artifact access ', 'source')).map(([word]) => word)).toEqual(['get', 'set'])
  })
})

describe('fish', { timeout: commandsTimeout }, () => {
  /** `complete -C` for each line typed so far, in one fish: [word, description] pairs. */
  async function completeEach(lines: readonly string[]): Promise<[string, string][][]> {
    need('fish')
    const call = 'source $argv[1]; or exit 1; for line in $argv[2..-1]; echo "<case>"; complete -C $line; end'
    const out = await run('fish', ['--no-config', '-c', call, script.fish, ...lines])
    return cases(out).map((found) =>
      found.map((l) => {
        const [word = '', description = ''] = l.split('\t')
        return [word, description]
      }),
    )
  }
  const complete = async (line: string) => (await completeEach([line]))[0] ?? []
  const words = async (line: string) => (await complete(line)).map(([word]) => word)

  it('completes command words level by level, with their descriptions', async () => {
    expect(await words('quire art')).toEqual(['artifact'])
    const artifact = await complete('quire artifact ')
    const get = commands.find((c) => c.path.join(' ') === 'artifact get')
    expect(artifact).toContainEqual(['get', get?.summary])
    expect(artifact).toContainEqual(['view', `${get?.summary} (alias of get)`])
    expect(await words('quire artifact access ')).toEqual(['get', 'set'])
    expect(await words('quire --format json art')).toEqual(['artifact'])
    expect(await words('quire artifact view --art')).toEqual(['--artifact-id'])
    // fish sorts the words.
    const all = ['', ...groups]
    const offered = await completeEach(all.map(lineAt))
    for (const [i, group] of all.entries()) expect(offered[i]?.map(([word]) => word).sort(), group).toEqual(subcommandsOf(group).sort())
  })

  it("offers the command's flags and the global ones, --yes where it applies", async () => {
    expect(await words('quire artifact get --art')).toEqual(['--artifact-id'])
    expect(await words('quire --no-i')).toEqual(['--no-input'])
    expect(await words('quire artifact delete art_1 --y')).toEqual(['--yes'])
    expect(await words('quire artifact get art_1 --y')).toEqual([])
    const content = commands.find((c) => c.path.join(' ') === 'artifact content')
    expect(await complete('quire artifact content art_1 --ver')).toEqual([
      ['--version', content?.options.find((o) => o.name === 'version')?.description],
    ])
    const offered = await completeEach(commands.map((c) => `quire ${c.path.join(' ')} --`))
    for (const [i, command] of commands.entries()) {
      const expected = [...command.options.map((o) => `--${o.name}`), '--base-url', '--format', '--no-input', '--help']
      expect(
        offered[i]?.map(([word]) => word),
        command.path.join(' '),
      ).toEqual(expect.arrayContaining(expected))
    }
  })

  it('completes choices, file names after file flags and after the @ of --json, nothing after other value flags', async () => {
    expect(await words('quire --format ')).toEqual(['json', 'text'])
    expect(await words('quire --format=')).toEqual(['--format=json', '--format=text'])
    expect((await words('quire share create --role ')).sort()).toEqual(['editor', 'viewer'])
    expect((await words('quire push --file ')).sort()).toEqual(['docs/', 'notes.txt', 'plan.md'])
    expect(await words('quire artifact create --json @pl')).toEqual(['@plan.md'])
    expect(await words('quire artifact create --json=@pl')).toEqual(['--json=@plan.md'])
    expect(await words('quire artifact create --json ')).toEqual([])
    expect(await words('quire artifact get --artifact-id ')).toEqual([])
    expect(await words('quire --base-url ')).toEqual([])
  })
})
