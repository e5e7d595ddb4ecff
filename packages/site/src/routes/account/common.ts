import { randomUUID } from 'node:crypto'
import { type ErrorCode, errorCodes, type Failure } from '@quire/core'
import type { FormState } from '@quire/pages'
import { sendFailure, type WebSession } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * What the account routes share: sign-in required, pages that are never cached, reading forms
 * and queries into an operation's input, and turning an operation's refusal into either the
 * form again (with the error next to its field) or a failure page.
 */

/** The signed-in person; else the request is sent to sign in (303), to come back to `returnTo`, and null. */
export function signedIn(request: FastifyRequest, reply: FastifyReply, returnTo: string = request.url): WebSession | null {
  if (request.session) return request.session
  reply.redirect(`/login?return_to=${encodeURIComponent(returnTo)}`, 303)
  return null
}

/** Who the header shows, with the session's token for its sign-out form. */
/** Sends a settings page: it names the person and carries their CSRF token, so no cache keeps it. */
export function sendPage(reply: FastifyReply, page: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page)
}

/** After a form went through: back to a page (Post/Redirect/Get), which shows the notice the key names. */
export function redirectWithNotice(reply: FastifyReply, path: string, notice: string): FastifyReply {
  return reply.redirect(`${path}?notice=${notice}`, 303)
}

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

/** Answers an operation's refusal with a page for a person (problem+json for a script): the operation's own words. */
export function refuse(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  return sendFailure(request, reply, { code: failure.code, title: errorCodes[failure.code].title, message: failure.message })
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

/** A form field: where the operation's input names it, and what to say when the input's schema refused it. */
export interface FieldRule {
  readonly path: string
  readonly rule: string
}

/** Refusals a form shows again with the typed values; anything else is a failure page. */
const formCodes: ReadonlySet<ErrorCode> = new Set([
  'validation_failed',
  'slug_taken',
  'already_member',
  'invitation_pending',
  'insufficient_scope',
  'idempotency_key_reused',
])

/** Whether a refusal is about what the person typed (show the form again) rather than who they are or what exists. */
export function isFormRefusal(failure: Failure): boolean {
  return formCodes.has(failure.code)
}

/**
 * `operate()` words a refusal of the input's schema so; the use-case's own refusals are sentences
 * meant for people, and are shown as they are.
 */
const schemaRefusal = 'The form is not valid:'

/**
 * A refused form: the typed values, each field's error (from the failure's field errors, or for
 * a refusal that concerns one field, such as a taken name, the field `byCode` names), and what
 * concerns no field.
 */
export function refusedForm(
  failure: Failure,
  values: Readonly<Record<string, string>>,
  rules: Readonly<Record<string, FieldRule>>,
  byCode: Partial<Record<ErrorCode, string>> = {},
): FormState {
  const errors: Record<string, string> = {}
  const fromSchema = failure.message.startsWith(schemaRefusal)
  for (const [name, { path, rule }] of Object.entries(rules)) {
    if (failure.errors?.some((e) => e.path === path || e.path.startsWith(`${path}/`))) errors[name] = fromSchema ? rule : failure.message
  }
  const named = byCode[failure.code]
  if (named !== undefined && errors[named] === undefined) errors[named] = failure.message
  return { values, errors, formError: Object.keys(errors).length > 0 ? null : failure.message }
}
