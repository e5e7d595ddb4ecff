import { html, type SafeHtml } from '@quire/render'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** A date a reader knows without converting: "26 Nov 2026" (UTC, like every time on the pages). */
const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'} ago`
}

/** How long ago `iso` was, as a person says it: "just now", "5 minutes ago", "3 days ago", then the date. */
export function ago(iso: string, now: Date): string {
  const then = new Date(iso)
  const elapsed = now.getTime() - then.getTime()
  // A clock a little ahead of the database's reads as now, not as "in 2 seconds".
  if (elapsed < MINUTE) return 'just now'
  if (elapsed < HOUR) return plural(Math.floor(elapsed / MINUTE), 'minute')
  if (elapsed < DAY) return plural(Math.floor(elapsed / HOUR), 'hour')
  if (elapsed < 7 * DAY) return plural(Math.floor(elapsed / DAY), 'day')
  return dateFormat.format(then)
}

/** A last change as a `<time>`: relative to read, exact (UTC, to the minute) on hover and in `datetime`. */
export function changedWhen(iso: string, now: Date): SafeHtml {
  return html`<time datetime="${iso}" title="${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC">${ago(iso, now)}</time>`
}
