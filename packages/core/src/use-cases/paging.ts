import type { PageOf, PageQuery } from '../contract/schemas/common.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { PageRequest } from '../ports/stores.ts'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 100

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return null
  }
}

/**
 * Reads `limit` and `cursor` into a store page request. Cursors are opaque to callers: a
 * versioned, base64url-encoded sort key, checked by `validKey` so a tampered one is refused.
 */
export function pageRequest(query: PageQuery | undefined, validKey: (key: string) => boolean): Result<PageRequest> {
  const limit = Math.min(Math.max(query?.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT)
  if (query?.cursor === undefined) return ok({ limit, after: null })
  const decoded = fromBase64Url(query.cursor)
  const key = decoded?.startsWith('1:') ? decoded.slice(2) : null
  if (key === null || !validKey(key)) return fail('invalid_cursor', 'The cursor is not one this service issued.')
  return ok({ limit, after: key })
}

/** Builds a page from up to `limit + 1` rows: the extra row only signals that more exist. */
export function toPage<R, T>(rows: readonly R[], page: PageRequest, keyOf: (row: R) => string, present: (row: R) => T): PageOf<T> {
  const items = rows.slice(0, page.limit)
  const last = items.at(-1)
  const more = rows.length > page.limit && last !== undefined
  return { items: items.map(present), nextCursor: more ? toBase64Url(`1:${keyOf(last)}`) : null }
}

export const idKey = (prefix: string) => (key: string) => new RegExp(`^${prefix}_[0-9a-z]{26}$`).test(key)
export const numberKey = (key: string) => /^[1-9][0-9]{0,9}$/.test(key)

/** One page of a user's records, newest first, keyed by their time-sortable ids. */
export async function pageOfIds<R extends { id: string }, T>(
  query: PageQuery,
  prefix: string,
  list: (page: PageRequest) => Promise<R[]>,
  present: (row: R) => T,
): Promise<Result<PageOf<T>>> {
  const page = pageRequest(query, idKey(prefix))
  if (!page.ok) return page
  const rows = await list(page.value)
  return ok(toPage(rows, page.value, (r) => r.id, present))
}
