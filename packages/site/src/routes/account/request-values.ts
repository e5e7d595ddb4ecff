import { randomUUID } from 'node:crypto'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Reading a query or a form into an operation's input: one value, several, a form's key, a list's cursor. */

/** One value of a query or form: its text, undefined when absent, null when repeated or not text. */
export function single(source: unknown, name: string): string | undefined | null {
  const value = (source as Record<string, unknown> | null | undefined)?.[name]
  if (value === undefined) return undefined
  return typeof value === 'string' ? value : null
}

/** A form field as text: absent, repeated or not text reads as empty (the operation then says what is missing). */
export function field(form: unknown, name: string): string {
  return single(form, name) ?? ''
}

/** A field that may repeat (checkboxes): every text value it carries. */
export function fields(form: unknown, name: string): string[] {
  const value = (form as Record<string, unknown> | null | undefined)?.[name]
  if (typeof value === 'string') return [value]
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/** The key a create form was made with (printable ASCII, as the operation's idempotency keys are); else none. */
export function idempotencyKeyOf(form: unknown): string | undefined {
  const key = single(form, 'idempotency_key')
  return typeof key === 'string' && /^[\x21-\x7e]{1,255}$/.test(key) ? key : undefined
}

/** A fresh key for a create form: submitting that form again replays the first result. */
export function newFormKey(): string {
  return randomUUID()
}

/**
 * The `cursor` of a list page's query: undefined for the first page; null once refused (repeated
 * or not text). Whether the service issued it is the operation's to say.
 */
export function cursorOf(request: FastifyRequest, reply: FastifyReply): string | undefined | null {
  const cursor = single(request.query, 'cursor')
  if (cursor === null) {
    sendFailure(request, reply, { code: 'invalid_cursor', title: 'No such page', message: 'The cursor is not one this service issued.' })
    return null
  }
  return cursor
}

/** The first page's query, or the page after a cursor. */
export function pageQuery(limit: number, cursor: string | undefined): { limit: number; cursor?: string } {
  return cursor === undefined ? { limit } : { limit, cursor }
}
