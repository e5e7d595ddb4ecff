// Unified diff benchmark: Quire's unifiedDiff against GNU `diff -u` measured in the same run.
// Run from the repo root: node --conditions=source bench/diff/run.ts
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTwoFilesPatch } from 'diff'
import { unifiedDiff } from '../../packages/core/src/diff/unified-diff.ts'
import { median } from '../harness.ts'
import { prng } from '../prng.ts'

const RUNS = 7
const TARGET_RATIO = 2
const JSDIFF_TIMEOUT_MS = 10_000

const SYLLABLES = ['ka', 'lo', 'mer', 'quin', 'ta', 'ver', 'si', 'dor', 'pa', 'nel', 'ru', 'est', 'ion', 'al', 'ble']

function makeWriter(random: () => number): { prose: () => string; document: (lines: number) => string[] } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const vocabulary = Array.from({ length: 3000 }, () => {
    let word = ''
    for (let s = 1 + Math.floor(random() * 3); s > 0; s--) word += pick(SYLLABLES)
    return word
  })
  const words = (count: number): string => Array.from({ length: count }, () => pick(vocabulary)).join(' ')
  const prose = (): string => `${words(8 + Math.floor(random() * 9))}.`
  const block = (): string[] => {
    const kind = random()
    if (kind < 0.1) return [`## ${words(2 + Math.floor(random() * 3))}`]
    if (kind < 0.25) return Array.from({ length: 2 + Math.floor(random() * 4) }, () => `- ${words(5 + Math.floor(random() * 6))}`)
    if (kind < 0.32) {
      const code = Array.from(
        { length: 2 + Math.floor(random() * 6) },
        () => `  const ${pick(vocabulary)} = ${pick(vocabulary)}(${Math.floor(random() * 1000)})`,
      )
      return ['```ts', ...code, '```']
    }
    return Array.from({ length: 1 + Math.floor(random() * 5) }, prose)
  }
  const document = (lines: number): string[] => {
    const out: string[] = [`# ${words(3)}`]
    while (out.length < lines) out.push('', ...block())
    return out.slice(0, lines)
  }
  return { prose, document }
}

/** Changes `fraction` of the lines: 60% rewritten, 20% deleted, 20% with a new line inserted before. */
function edit(lines: string[], fraction: number, random: () => number, prose: () => string): string[] {
  const action = new Uint8Array(lines.length)
  let remaining = Math.round(lines.length * fraction)
  while (remaining > 0) {
    const at = Math.floor(random() * lines.length)
    if (action[at] !== 0) continue
    const roll = random()
    action[at] = roll < 0.6 ? 1 : roll < 0.8 ? 2 : 3
    remaining--
  }
  const out: string[] = []
  lines.forEach((line, at) => {
    if (action[at] === 1) out.push(prose())
    else if (action[at] === 3) out.push(random() < 0.15 ? '' : prose(), line)
    else if (action[at] !== 2) out.push(line)
  })
  return out
}

/** Median milliseconds of each contender over RUNS alternated runs, after one warm-up each. */
function timeAlternating(contenders: (() => void)[]): number[] {
  for (const run of contenders) run()
  const samples = contenders.map((): number[] => [])
  for (let r = 0; r < RUNS; r++) {
    contenders.forEach((run, k) => {
      const start = performance.now()
      run()
      samples[k]?.push(performance.now() - start)
    })
  }
  return samples.map((s) => median(s))
}

interface Case {
  name: string
  from: string
  to: string
  changed: string
  lines: number
  adversarial: boolean
}

function buildCases(): Case[] {
  const cases: Case[] = []
  for (const lines of [10_000, 50_000]) {
    for (const fraction of [0.01, 0.3]) {
      const random = prng(lines + Math.round(fraction * 100))
      const writer = makeWriter(random)
      const original = writer.document(lines)
      const changed = edit(original, fraction, random, writer.prose)
      const name = `prose ${lines / 1000}k ${fraction * 100}%`
      cases.push({
        name,
        from: `${original.join('\n')}\n`,
        to: `${changed.join('\n')}\n`,
        changed: `${fraction * 100}%`,
        lines,
        adversarial: false,
      })
    }
  }
  const random = prng(5)
  const alphabet = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']
  const tiny = (): string => Array.from({ length: 50_000 }, () => `${alphabet[Math.floor(random() * 5)]}\n`).join('')
  cases.push({ name: 'adversarial 5-line alphabet', from: tiny(), to: tiny(), changed: 'random', lines: 50_000, adversarial: true })
  const shuffled = makeWriter(random)
    .document(50_000)
    .map((line, at) => `${at} ${line}\n`)
  const reordered = [...shuffled]
  for (let k = reordered.length - 1; k > 0; k--) {
    const swap = Math.floor(random() * (k + 1))
    ;[reordered[k], reordered[swap]] = [reordered[swap] as string, reordered[k] as string]
  }
  cases.push({
    name: 'adversarial shuffled',
    from: shuffled.join(''),
    to: reordered.join(''),
    changed: 'all moved',
    lines: 50_000,
    adversarial: true,
  })
  return cases
}

const directory = mkdtempSync(join(tmpdir(), 'quire-diff-bench-'))
const header = ['case', 'lines', 'changed', 'GNU ms', 'Quire ms', 'ratio', '≤ 2×', '± lines GNU/Quire', 'jsdiff ms']
const rows: string[][] = []
let met = 0
let targets = 0
try {
  for (const testCase of buildCases()) {
    const fromPath = join(directory, 'from.txt')
    const toPath = join(directory, 'to.txt')
    writeFileSync(fromPath, testCase.from)
    writeFileSync(toPath, testCase.to)
    let gnuOutput: Buffer = Buffer.alloc(0)
    const runGnu = (): void => {
      const result = spawnSync('/usr/bin/diff', ['-u', fromPath, toPath], { maxBuffer: 1 << 30 })
      if (result.status !== 1) throw new Error(`diff -u exited with ${result.status}`)
      gnuOutput = result.stdout
    }
    const [gnu = 0, quire = 0] = timeAlternating([runGnu, () => unifiedDiff(testCase.from, testCase.to)])
    const gnuChanged = gnuOutput
      .toString('utf8')
      .split('\n')
      .filter((line) => /^[+-](?!\+\+ |-- )/.test(line)).length
    const { additions, deletions } = unifiedDiff(testCase.from, testCase.to)
    const ratio = quire / gnu
    let verdict = 'n/a'
    if (!testCase.adversarial) {
      targets++
      if (ratio <= TARGET_RATIO) met++
      verdict = ratio <= TARGET_RATIO ? 'yes' : 'NO'
    }
    let jsdiff = '-'
    if (testCase.lines === 10_000) {
      const start = performance.now()
      const patch = createTwoFilesPatch('from', 'to', testCase.from, testCase.to, undefined, undefined, { timeout: JSDIFF_TIMEOUT_MS })
      jsdiff = patch === undefined ? `> ${JSDIFF_TIMEOUT_MS}` : (performance.now() - start).toFixed(0)
    }
    const { name, lines, changed } = testCase
    const timings = [gnu.toFixed(2), quire.toFixed(2), ratio.toFixed(2)]
    rows.push([name, String(lines), changed, ...timings, verdict, `${gnuChanged}/${additions + deletions}`, jsdiff])
  }
} finally {
  rmSync(directory, { recursive: true, force: true })
}

const table = [header, ...rows]
const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)))
for (const row of table)
  console.log(
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  )
console.log(`\nmedian of ${RUNS} alternated runs after a warm-up; GNU includes process spawn; jsdiff = plain createTwoFilesPatch, one run`)
console.log(`${met === targets ? 'PASS' : 'FAIL'}: ${met}/${targets} cases within ${TARGET_RATIO}× of GNU diff -u`)
