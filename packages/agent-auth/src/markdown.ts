/** Writing Markdown for `/auth.md`: code spans and fences, lifetimes in words, JSON examples. */

export const fence = '```'
export const tick = (text: string) => `\`${text}\``

/** A lifetime in words: `10 minutes`, `24 hours`, `30 days`. */
export function span(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  if (seconds > 86_400 && seconds % 86_400 === 0) return unit(seconds / 86_400, 'day')
  if (seconds >= 3600 && seconds % 3600 === 0) return unit(seconds / 3600, 'hour')
  if (seconds >= 60 && seconds % 60 === 0) return unit(seconds / 60, 'minute')
  return unit(seconds, 'second')
}

/** A lifetime for the table: `10 minutes (600 s)`. */
export function duration(seconds: number): string {
  return seconds < 60 ? span(seconds) : `${span(seconds)} (${seconds} s)`
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2)
}
