import type { Failure } from '@quire/core'
import type { FieldErrors } from '@quire/pages'
import type { FastifyRequest } from 'fastify'

/** A form's fields as the body parser gave them: one string per name (a repeated name counts as absent). */
export function formOf(request: FastifyRequest): (name: string) => string | undefined {
  const body = (request.body ?? {}) as Record<string, unknown>
  return (name) => {
    const value = Object.hasOwn(body, name) ? body[name] : undefined
    return typeof value === 'string' ? value : undefined
  }
}

/**
 * A failed operation's field errors, by the form field each names (`/body/viewerEmails/3` →
 * `viewerEmails`), in the words the operation used; several on one field are joined.
 */
export function fieldErrorsOf(failure: Failure, fieldOf: (property: string) => string | null = (p) => p): FieldErrors {
  const errors: Record<string, string> = {}
  for (const { path, message } of failure.errors ?? []) {
    const [, part, property] = path.split('/')
    const field = part === 'body' && property ? fieldOf(property) : null
    if (field === null) continue
    errors[field] = errors[field] ? `${errors[field]}; ${message}` : message
  }
  return errors
}
