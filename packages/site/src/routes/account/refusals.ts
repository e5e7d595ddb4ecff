import { type ErrorCode, errorCodes, type Failure } from '@quire/core'
import type { FormState } from '@quire/pages'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * An operation's refusal, answered: the form again with the error next to its field when it is
 * about what the person typed, else a failure page.
 */

/** Answers an operation's refusal with a page for a person (problem+json for a script): the operation's own words. */
export function refuse(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  return sendFailure(request, reply, { code: failure.code, title: errorCodes[failure.code].title, message: failure.message })
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
