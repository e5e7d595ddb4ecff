import type { OperationId, PageOf } from '@quire/core/contract'
import { QuireNetworkError } from './errors.ts'
import { operationOf } from './request.ts'

interface PageInput {
  readonly query?: { readonly cursor?: string } & Readonly<Record<string, unknown>>
}

/**
 * Whether an operation is a list that `paginate` can walk: its query takes a `cursor` and it
 * answers a page (catch-up takes a cursor for the page of versions it holds, but is no list).
 */
export function isPaginated(operationId: OperationId): boolean {
  const op = operationOf(operationId)
  const answer = (op.success.schema as { properties?: Record<string, unknown> }).properties
  return op.query?.properties.cursor !== undefined && answer?.items !== undefined && answer.nextCursor !== undefined
}

/**
 * Walks a list from the input's `cursor` (or the first page) to the page whose `nextCursor` is
 * null, fetching each page only when the one before has been consumed.
 */
export async function* walkPages<Item>(
  operationId: OperationId,
  input: PageInput | undefined,
  fetchPage: (input: PageInput) => Promise<PageOf<Item>>,
): AsyncGenerator<PageOf<Item>, void, undefined> {
  if (!isPaginated(operationId)) throw new TypeError(`${operationId} is not a paginated list.`)
  let cursor = input?.query?.cursor
  for (;;) {
    const page = await fetchPage({ ...input, query: { ...input?.query, ...(cursor === undefined ? {} : { cursor }) } })
    yield page
    if (page.nextCursor === null) return
    if (page.nextCursor === cursor)
      throw new QuireNetworkError(operationId, 'invalid_response', `${operationId} answered the same cursor again; stopping.`)
    cursor = page.nextCursor
  }
}
