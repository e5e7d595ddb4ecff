import { MAX_VIEWER_EMAILS } from '../contract/schemas/access.ts'
import { fail, ok, type Result } from './result.ts'

const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * An allowlist as stored: lower-cased, each address once. A malformed address, a duplicate
 * (compared case-insensitively) or too many addresses is refused, naming the offending value.
 * (The REST schema checks the format first; other surfaces rely on this.)
 */
export function normalizeViewerEmails(emails: readonly string[], path = '/body/viewerEmails'): Result<string[]> {
  if (emails.length > MAX_VIEWER_EMAILS) {
    return fail('validation_failed', `viewerEmails has ${emails.length} addresses; at most ${MAX_VIEWER_EMAILS} are allowed.`, {
      errors: [{ path, message: `must have at most ${MAX_VIEWER_EMAILS} addresses (has ${emails.length})` }],
    })
  }
  const seen = new Map<string, number>()
  const list: string[] = []
  for (const [i, raw] of emails.entries()) {
    const email = raw.trim().toLowerCase()
    if (!emailShape.test(email) || email.length > 254) {
      return fail('validation_failed', `viewerEmails: "${raw}" is not an email address.`, {
        errors: [{ path: `${path}/${i}`, message: `"${raw}" is not an email address` }],
      })
    }
    const first = seen.get(email)
    if (first !== undefined) {
      return fail('validation_failed', `viewerEmails lists "${raw}" twice (at ${first} and ${i}).`, {
        errors: [{ path: `${path}/${i}`, message: `"${raw}" duplicates entry ${first}` }],
      })
    }
    seen.set(email, i)
    list.push(email)
  }
  return ok(list)
}

/** A share link's expiry: absent, or in the future and at most a year ahead. */
export function shareLinkExpiry(expiresAt: string | undefined, now: Date): Result<Date | null> {
  if (expiresAt === undefined) return ok(null)
  const at = new Date(expiresAt)
  const problem = (message: string) =>
    fail<Date | null>('validation_failed', `expiresAt ${expiresAt} ${message}.`, { errors: [{ path: '/body/expiresAt', message }] })
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(expiresAt) || Number.isNaN(at.getTime()))
    return problem('must be an ISO 8601 UTC timestamp with milliseconds, e.g. 2026-12-31T23:59:59.000Z')
  if (at.getTime() <= now.getTime()) return problem('is not in the future')
  const yearAhead = new Date(now)
  yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1)
  if (at.getTime() > yearAhead.getTime()) return problem('is more than a year ahead')
  return ok(at)
}
