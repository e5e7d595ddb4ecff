import { spawnTracked } from '@quire/testing/processes'
import { cliEntry, type Finished, finish } from './quire-process.ts'

/**
 * `quire` on a pseudo-terminal, as a person runs it: util-linux `script` gives the child a
 * terminal for its standard input, output and error (so `isTTY` is true, colours and prompts
 * are on), and copies what we write into the terminal's input. What comes back is everything
 * the terminal showed, both streams mixed, with the terminal's `\r\n` turned into `\n`.
 */

/** A word for `sh -c`, single-quoted. */
const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

export async function runOnTerminal(
  args: readonly string[],
  options: { env: Record<string, string>; input?: string; cwd?: string; columns?: number },
): Promise<Finished> {
  const command = [process.execPath, '--conditions=source', cliEntry, ...args].map(quote).join(' ')
  // `-e`: script exits with the child's status; `-q`: no banner; the typescript file is discarded.
  const child = spawnTracked('script', ['-qec', `stty cols ${options.columns ?? 200} rows 50 2>/dev/null; exec ${command}`, '/dev/null'], {
    env: { TERM: 'xterm-256color', ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const done = await finish(child, options.input !== undefined ? { stdin: options.input } : {})
  return { ...done, stdout: done.stdout.replaceAll('\r\n', '\n') }
}

/** An ANSI escape sequence (ESC then `[`). */
export const ansi = new RegExp(`${String.fromCharCode(27)}\\[`)

/** The text without ANSI escape sequences. */
export const plain = (text: string) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
