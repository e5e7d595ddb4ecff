/**
 * The search table without a server: hits as the API answers them, rendered by the CLI's renderer
 * with colour on and off and at a terminal's width (wide characters counted as two columns, a
 * document's control characters never reaching the terminal), and the command line read into the
 * query (a `-word` is a word, `--` ends the flags).
 */
import { describe, expect, it } from 'vitest'
import { commands } from '../src/registry/commands.ts'
import { commandEntries } from '../src/registry/entries.ts'
import { read, tree } from '../src/run/command-line.ts'
import type { CommandResult, Globals, Io } from '../src/run/context.ts'
import { renderer } from '../src/run/output.ts'
import { columnWidths, cut, textWidth } from '../src/run/table.ts'
import { plain } from './pty.ts'

const search = commands.find((c) => c.path.join(' ') === 'search')
if (!search) throw new Error('no quire search')

const esc = String.fromCharCode(27)
const red = (text: string) => `${esc}[1m${esc}[31m${text}${esc}[39m${esc}[22m`

const artifact = (slug: string, title: string, latestVersion = 1) => ({
  id: `art_${slug}`,
  ownerUsername: 'ada',
  projectSlug: 'notes',
  slug,
  title,
  description: '',
  latestVersion,
  url: `https://quire.example/ada/notes/${slug}`,
})

const hits = [
  {
    artifact: artifact('plan', 'Deploy plan'),
    version: 1,
    score: 0.5,
    snippets: [
      {
        field: 'title',
        segments: [
          { text: 'Deploy', match: true },
          { text: ' plan', match: false },
        ],
      },
      {
        field: 'content',
        line: 12,
        segments: [
          { text: 'Then ', match: false },
          { text: 'deploy', match: true },
          { text: ` the API${esc}[2J and the web app, and tell the team on the release channel.`, match: false },
        ],
      },
    ],
  },
  {
    artifact: artifact('tokyo', '東京の配備', 3),
    version: 2,
    score: 0.1,
    snippets: [
      {
        field: 'content',
        line: 1,
        segments: [
          { text: '配備', match: true },
          { text: 'の手順はこちら', match: false },
        ],
      },
    ],
  },
]

async function render(options: { color: boolean; columns?: number; items?: readonly unknown[]; empty?: string }) {
  let stdout = ''
  let stderr = ''
  const io: Io = {
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stderr += text
    },
    stdinIsTty: false,
    stdoutIsTty: options.color,
    stderrIsTty: false,
    ...(options.columns ? { stdoutColumns: options.columns } : {}),
    readStdin: async () => '',
  }
  const result: CommandResult = {
    kind: 'page',
    items: options.items ?? hits,
    nextCursor: null,
    ...(options.empty ? { empty: options.empty } : {}),
  }
  await renderer({ format: 'text' } as Globals, io, { color: options.color }).result(search as NonNullable<typeof search>, result)
  return { stdout, stderr }
}

describe('the search table', () => {
  it('shows the path, the title and the first passage of each hit, plain without colour, whole without a terminal', async () => {
    const { stdout } = await render({ color: false })
    expect(stdout).not.toContain(esc)
    expect(stdout.split('\n')).toEqual([
      'PATH             TITLE        SNIPPET',
      // The escape character of the document is a space: it cannot clear the screen.
      'ada/notes/plan   Deploy plan  12: Then deploy the API [2J and the web app, and tell the team on the release channel.',
      // An older version's passage says which version matched.
      'ada/notes/tokyo  東京の配備   v2 1: 配備の手順はこちら',
      '',
    ])
  })

  it("marks the server's matches in bold red on a terminal, in the title and the passage", async () => {
    const { stdout } = await render({ color: true })
    expect(stdout).toContain(`${red('Deploy')} plan`)
    expect(stdout).toContain(`12: Then ${red('deploy')} the API`)
    expect(stdout).toContain(`v2 1: ${red('配備')}の手順はこちら`)
    expect(plain(stdout)).toBe((await render({ color: false })).stdout)
  })

  it("fits the terminal's width, the snippet cut with … and wide characters counted twice", async () => {
    const { stdout } = await render({ color: true, columns: 60 })
    const lines = plain(stdout).trimEnd().split('\n')
    for (const line of lines) expect(textWidth(line), line).toBeLessThanOrEqual(60)
    expect(lines[1]).toBe('ada/notes/plan   Deploy plan  12: Then deploy the API [2J a…')
    expect(lines[2]).toBe('ada/notes/tokyo  東京の配備   v2 1: 配備の手順はこちら')
    // The cut keeps the mark on what it keeps.
    expect(stdout).toContain(`12: Then ${red('deploy')} the API [2J a…`)
  })

  it('says what the command says when nothing matches, on standard error', async () => {
    const { stdout, stderr } = await render({ color: false, items: [], empty: 'Nothing you may read matches "x".' })
    expect(stdout).toBe('')
    expect(stderr).toBe('Nothing you may read matches "x".\n')
  })
})

describe('cutting and fitting', () => {
  it('cuts segments to a width in columns, keeping their marks', () => {
    expect(cut([{ text: 'abcdef', match: false }], 6)).toEqual([{ text: 'abcdef', match: false }])
    expect(
      cut(
        [
          { text: 'ab', match: false },
          { text: 'cdef', match: true },
        ],
        4,
      ),
    ).toEqual([
      { text: 'ab', match: false },
      { text: 'c', match: true },
      { text: '…', match: false },
    ])
    // 東 takes two columns: three of them do not fit in 5 with the …
    expect(cut([{ text: '東京都', match: false }], 5)).toEqual([
      { text: '東京', match: false },
      { text: '…', match: false },
    ])
  })

  it('gives the filling column what the others leave, narrowing the others (the first last) below its minimum', () => {
    expect(columnWidths([10, 20, 100], 2, undefined)).toEqual([10, 20, 100])
    expect(columnWidths([10, 70, 100], -1, 80)).toEqual([10, 60, 60])
    expect(columnWidths([10, 20, 100], 2, 80)).toEqual([10, 20, 46])
    expect(columnWidths([10, 20, 30], 2, 200)).toEqual([10, 20, 30])
    expect(columnWidths([30, 30, 100], 2, 70)).toEqual([30, 12, 24])
    expect(columnWidths([40, 30, 100], 2, 50)).toEqual([14, 8, 24])
  })
})

describe('the command line of quire search', () => {
  const root = tree(commandEntries)
  it('takes every word after search as the query, a -word among them, and all after --', () => {
    expect(read(['search', 'deploy', '-draft', '--type', 'md', 'plan'], root)).toMatchObject({
      positionals: ['deploy', '-draft', 'plan'],
      // The -word is not for the flag parser.
      rest: ['deploy', '--type', 'md', 'plan'],
      help: false,
    })
    expect(read(['search', '--', 'deploy', '--type', '-h'], root).positionals).toEqual(['deploy', '--type', '-h'])
    expect(read(['search', 'deploy', '-h'], root).help).toBe(true)
    expect(() => read(['search', 'deploy', '--draft'], root)).toThrow('Unknown flag --draft for "quire search"')
    // Elsewhere a single dash still names a flag.
    expect(() => read(['artifact', 'list', '-draft'], root)).toThrow('Unknown flag --draft')
  })
})
