import {
  type Binding,
  type BindingOptions,
  bindings,
  checkInput,
  fail,
  firstPerField,
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

/**
 * Runs one operation of the table for a page or a form, as the signed-in person (or anonymous):
 * the input is checked by core's one validator against the operation's own schemas, as a REST
 * request is (coerced, defaults applied, the same errors), then its binding runs, so a form goes
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
  // The form shows what was typed: messages need not repeat it.
  const checked = checkInput(op, input, { quoteValues: false })
  if (!checked.ok) {
    const errors = firstPerField(checked.errors)
    const named = errors.map(({ path, message }) => `${path.split('/').pop() || path} ${message}`)
    return fail('validation_failed', `The form is not valid: ${named.join('; ')}.`, { errors })
  }
  const bind = bindings[id] as unknown as Binding<K>
  return bind(runtime.deps, webCaller(request), checked.value, options)
}
