import {
  type Binding,
  type BindingOptions,
  bindings,
  fail,
  type OperationId,
  type OperationInput,
  type OperationOutput,
  type OperationSpec,
  type Operations,
  type Outcome,
  operations,
  type Result,
} from '@quire/core'
import type { Runtime } from '@quire/runtime'
import { webCaller } from '@quire/web-http'
import type { FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'

type FieldError = { path: string; message: string }
type Validator = ReturnType<typeof Compile>

const validators = new Map<TSchema, Validator>()

function validatorOf(schema: TSchema): Validator {
  let validator = validators.get(schema)
  if (!validator) {
    validator = Compile(schema)
    validators.set(schema, validator)
  }
  return validator
}

/** What the operation's schema says about one part of the input, as field errors (`/body/content`). */
function errorsIn(part: 'params' | 'query' | 'body', schema: TSchema | undefined, value: unknown): FieldError[] {
  if (!schema) return []
  const validator = validatorOf(schema)
  if (validator.Check(value)) return []
  const found = new Map<string, string>()
  for (const issue of validator.Errors(value)) {
    if (issue.keyword === 'boolean') continue
    const path = `/${part}${issue.instancePath}`
    if (!found.has(path)) found.set(path, issue.keyword === 'required' ? 'is required' : (issue.message ?? 'is not valid'))
  }
  return [...found].map(([path, message]) => ({ path, message }))
}

/**
 * Runs one operation of the table for a page or a form, as the signed-in person (or anonymous):
 * the input is checked against the operation's own schemas, then its binding runs, so a form goes
 * through the same use-case, the same `decide()` and the same audit write as the REST call with
 * the same input. A form only maps its fields onto the operation's input. A create form may pass
 * an idempotency key (a hidden field made with the form), so that submitting it twice (a reload of
 * the answer, a double click) replays the first result instead of writing again.
 */
export async function operate<K extends OperationId>(
  runtime: Runtime,
  request: FastifyRequest,
  id: K,
  input: OperationInput<Operations[K]>,
  options: BindingOptions = {},
): Promise<Result<Outcome<OperationOutput<Operations[K]>>>> {
  const op: OperationSpec = operations[id]
  const errors = [
    ...errorsIn('params', op.params, input.params),
    ...errorsIn('query', op.query, input.query),
    ...errorsIn('body', op.body, input.body),
  ]
  if (errors.length > 0) {
    const named = errors.map(({ path, message }) => `${path.split('/').pop() || path} ${message}`)
    return fail('validation_failed', `The form is not valid: ${named.join('; ')}.`, { errors })
  }
  const bind = bindings[id] as unknown as Binding<K>
  return bind(runtime.deps, webCaller(request), input, options)
}
