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
