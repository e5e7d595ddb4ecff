import type { DocumentView } from '@quire/pages'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A version number as the query gives it: a positive whole number within the contract's range, else null. */
export function versionNumber(raw: unknown): number | null {
  return typeof raw === 'string' && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : null
}

/** `?version=N`: a version number, absent (the latest), or refused (null). */
export function versionOf(query: unknown): number | undefined | null {
  const raw = (query as { version?: unknown } | undefined)?.version
  return raw === undefined ? undefined : versionNumber(raw)
}

/** Refuses a `?version=` that is not a version number, with a 400 page. */
export function refuseVersion(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, {
    code: 'validation_failed',
    title: 'No such version',
    message: '`version` must be a version number (1, 2, …).',
  })
}

/** `?view=source`: the source tab of an HTML, SVG or Mermaid version; absent: the rendered one; anything else refused (null). */
export function documentViewOf(query: unknown): DocumentView | null {
  const raw = (query as { view?: unknown } | undefined)?.view
  if (raw === undefined) return 'rendered'
  return raw === 'source' ? 'source' : null
}

/** Refuses a `?view=` that is not a view, with a 400 page. */
export function refuseView(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, {
    code: 'validation_failed',
    title: 'No such view',
    message: '`view` is `source` (the highlighted source), or left out (the document as rendered).',
  })
}
