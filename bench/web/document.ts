/**
 * A Markdown document the way technical notes are written, made from a seed: sections under
 * headings, paragraphs with inline markup and links, lists, task lists, tables, fenced code in
 * several languages, footnotes, blockquotes, and now and then raw HTML (`<kbd>`, `<details>`). The same seed always gives the same document; a
 * different seed a different one of the same mix, so a render measured on it is a first render.
 */

import { prng } from '../prng.ts'

const WORDS = (
  'artifact version project workspace owner reader change history render page cache content hash ' +
  'share link token access viewer editor public private draft review note release plan meeting ' +
  'decision budget server client request response latency storage index query schema migration ' +
  'table column row field value default option setting format document section heading paragraph ' +
  'list item task footnote quote code block language library module package function method type ' +
  'the a of to in and for with on by from as is are was be will can should must may not every each ' +
  'when then after before while because so that which this these those it its our their we you they ' +
  'new old first last next fast slow large small simple clear stable safe strict open closed ready'
).split(' ')

/** Fences in the languages notes use most, and one highlight.js does not know (shown escaped). */
const FENCES: Record<string, (r: Writer) => string[]> = {
  ts: (w) => [
    `export async function ${w.ident()}(${w.ident()}: string, limit = ${w.int(100)}): Promise<${w.type()}[]> {`,
    `  const rows = await db.selectFrom('${w.word()}s').where('id', '=', ${w.ident()}).limit(limit).execute()`,
    `  // ${w.words(6)}`,
    `  return rows.map((row) => ({ ...row, ${w.ident()}: row.${w.ident()} ?? null }))`,
    '}',
  ],
  js: (w) => [
    `const ${w.ident()} = require('${w.word()}')`,
    `for (const item of ${w.ident()}.filter((x) => x.${w.ident()} > ${w.int(50)})) {`,
    `  console.log(\`\${item.name}: ${w.words(3)}\`)`,
    '}',
  ],
  python: (w) => [
    `def ${w.ident('_')}(${w.ident('_')}, ${w.ident('_')}=None):`,
    `    """${w.words(7)}."""`,
    `    for key, value in sorted(${w.ident('_')}.items()):`,
    `        if value > ${w.int(1000)}:`,
    `            yield key, value * ${w.int(9)}  # ${w.words(4)}`,
  ],
  bash: (w) => [
    `export QUIRE_${w.word().toUpperCase()}=${w.int(5000)}`,
    `quire artifact get ${w.word()}/${w.word()}/${w.word()} --version ${w.int(40)} | jq '.content' > out.md`,
    `if [ -f "$HOME/.config/${w.word()}" ]; then echo "${w.words(3)}"; fi`,
  ],
  json: (w) => [
    '{',
    `  "${w.ident()}": "${w.words(3)}",`,
    `  "${w.ident()}": [${w.int(9)}, ${w.int(99)}, ${w.int(999)}],`,
    `  "${w.ident()}": { "enabled": true, "limit": ${w.int(500)}, "note": null }`,
    '}',
  ],
  yaml: (w) => [`${w.ident()}:`, `  ${w.word()}: ${w.words(2)}`, `  replicas: ${w.int(8)}`, `  tags: [${w.word()}, ${w.word()}]`],
  sql: (w) => [
    `SELECT a.id, a.title, count(v.number) AS versions FROM artifacts a`,
    `JOIN versions v ON v.artifact_id = a.id WHERE a.${w.ident('_')} > ${w.int(100)}`,
    `GROUP BY a.id ORDER BY versions DESC LIMIT ${w.int(50)};`,
  ],
  go: (w) => [
    `func ${w.ident()}(ctx context.Context, id string) (*${w.type()}, error) {`,
    `\tif id == "" {\n\t\treturn nil, errors.New("${w.words(3)}")\n\t}`,
    `\treturn store.Get(ctx, id, ${w.int(30)})`,
    '}',
  ],
  rust: (w) => [
    `fn ${w.ident('_')}(items: &[${w.type()}]) -> usize {`,
    `    items.iter().filter(|i| i.${w.ident('_')} > ${w.int(64)}).count() // ${w.words(3)}`,
    '}',
  ],
  text: (w) => [`${w.words(8)}`, `  ${w.words(6)}`],
}

interface Writer {
  word(): string
  words(count: number): string
  ident(separator?: string): string
  type(): string
  int(below: number): number
}

/** A Markdown document of about `bytes` bytes of UTF-8 (never more), made from `seed`. */
export function markdownDocument(bytes: number, seed: number): string {
  const random = prng(seed)
  const int = (below: number) => Math.floor(random() * below)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T
  const word = () => pick(WORDS)
  const words = (count: number) => Array.from({ length: count }, word).join(' ')
  const writer: Writer = {
    word,
    words,
    ident: (separator = '') => {
      const [first = 'x', second = 'y'] = [word(), word()]
      return separator ? `${first}${separator}${second}` : `${first}${second[0]?.toUpperCase()}${second.slice(1)}`
    },
    type: () => {
      const name = word()
      return `${name[0]?.toUpperCase()}${name.slice(1)}`
    },
    int,
  }
  let footnotes = 0
  const notes: string[] = []
  let notesSize = 0

  /** A sentence with inline markup now and then: emphasis, code, links, an autolink, a footnote. */
  const sentence = (): string => {
    const parts: string[] = []
    for (let n = 6 + int(10); n > 0; n--) {
      const roll = random()
      if (roll < 0.05) parts.push(`**${words(1 + int(2))}**`)
      else if (roll < 0.09) parts.push(`*${word()}*`)
      else if (roll < 0.13) parts.push(`\`${writer.ident()}()\``)
      else if (roll < 0.16) parts.push(`[${words(1 + int(3))}](https://docs.example.com/${word()}/${word()}#${word()})`)
      else if (roll < 0.17) parts.push(`[${word()}](/${word()}/${word()}/${word()})`)
      else if (roll < 0.175) parts.push(`https://www.example.org/${word()}`)
      else if (roll < 0.18) parts.push(`~~${word()}~~`)
      else if (roll < 0.181) parts.push(`<kbd>Ctrl</kbd>+<kbd>${word()[0]?.toUpperCase()}</kbd>`)
      else if (roll < 0.185) {
        footnotes++
        parts.push(`${word()}[^n${footnotes}]`)
        const note = `[^n${footnotes}]: ${sentence()}`
        notes.push(note)
        notesSize += Buffer.byteLength(note) + 2
      } else parts.push(word())
    }
    const text = parts.join(' ')
    return `${text[0]?.toUpperCase()}${text.slice(1)}.`
  }
  const paragraph = () => Array.from({ length: 2 + int(4) }, sentence).join(' ')
  const list = (ordered: boolean): string[] =>
    Array.from({ length: 3 + int(4) }, (_, i) => {
      const item = `${ordered ? `${i + 1}.` : '-'} ${sentence()}`
      return random() < 0.25 ? `${item}\n${ordered ? '   ' : '  '}- ${sentence()}` : item
    })
  const tasks = (): string[] => Array.from({ length: 3 + int(5) }, () => `- [${random() < 0.4 ? 'x' : ' '}] ${sentence().slice(0, -1)}`)
  const table = (): string[] => {
    const columns = 3 + int(3)
    const cell = () => (random() < 0.2 ? `\`${writer.ident()}\`` : random() < 0.3 ? String(int(10_000)) : words(1 + int(3)))
    const row = (cells: string[]) => `| ${cells.join(' | ')} |`
    const aligns = [':---', ':---:', '---:', '---']
    return [
      row(Array.from({ length: columns }, () => writer.type())),
      row(Array.from({ length: columns }, () => pick(aligns))),
      ...Array.from({ length: 4 + int(8) }, () => row(Array.from({ length: columns }, cell))),
    ]
  }
  const fence = (): string[] => {
    const language = pick(Object.keys(FENCES))
    const make = FENCES[language] as (w: Writer) => string[]
    const body = Array.from({ length: 1 + int(3) }, () => make(writer).join('\n'))
    return [`\`\`\`${language}`, body.join('\n\n'), '```']
  }
  const quote = (): string[] => [`> ${sentence()}`, '>', `> ${paragraph()}`]

  const blocks: string[] = [`# ${writer.type()} ${words(3)}`, paragraph()]
  let size = 0
  const add = (block: string) => {
    blocks.push(block)
    size += Buffer.byteLength(block) + 2
  }
  while (size + notesSize < bytes) {
    if (random() < 0.12)
      add(`${random() < 0.7 ? '##' : '###'} ${writer.type()} ${words(1 + int(4))}${random() < 0.2 ? ` \`${writer.ident()}\`` : ''}`)
    const roll = random()
    if (roll < 0.42) add(paragraph())
    else if (roll < 0.52) add(list(random() < 0.4).join('\n'))
    else if (roll < 0.57) add(tasks().join('\n'))
    else if (roll < 0.65) add(table().join('\n'))
    else if (roll < 0.9) add(fence().join('\n'))
    else if (roll < 0.98) add(quote().join('\n'))
    else add(`<details>\n<summary>${words(3)}</summary>\n\n${paragraph()}\n\n${fence().join('\n')}\n\n</details>`)
  }
  // Footnote definitions close the document, as people write them. The last blocks go until it
  // fits (a definition whose reference went with them is simply not listed).
  const text = () => `${blocks.join('\n\n')}\n\n${notes.join('\n\n')}\n`
  while (Buffer.byteLength(text()) > bytes) blocks.pop()
  return text()
}
