import {
  type Binding,
  type BindingOptions,
  bindings,
  type Caller,
  type ContentRead,
  checkInput,
  fail,
  firstPerField,
  type OperationId,
  type OperationInput,
  type OperationOutput,
  type OperationSpec,
  type Operations,
  type Outcome,
  ok,
  operations,
  type Result,
} from '@quire/core'
import type { Runtime } from '@quire/runtime'
import { webCaller, webDeps } from '@quire/web-http'
import type { FastifyRequest } from 'fastify'

/** What a page passes besides the input. */
export interface OperateOptions extends BindingOptions {
  /** The caller the page acts as when it is not the signed-in person: a share link's page acts as the link (`tokenCaller`). */
  readonly as?: Caller
}

/**
 * Runs one operation of the table for a page or a form, as the signed-in person (or anonymous):
 * the input is checked by core's one validator against the operation's own schemas, as a REST
 * request is (coerced, defaults applied, the same errors), then its binding runs, so a form goes
 * through the same use-case, the same `decide()` and the same audit write as the REST call with
 * the same input. Every operation of one request shares what the request loaded (`webDeps`): a
 * page that shows several loads its credential and its artifact once. A form only maps its fields
 * onto the operation's input. A create form may pass an idempotency key (a hidden field made with
 * the form), so that submitting it twice (a reload of the answer, a double click) replays the
 * first result instead of writing again.
 */
export async function operate<K extends OperationId>(
  runtime: Runtime,
  request: FastifyRequest,
  id: K,
  input: OperationInput<Operations[K]>,
  options: OperateOptions = {},
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
  const { as, ...binding } = options
  return bind(webDeps(runtime.deps, request), as ?? webCaller(request), checked.value, binding)
}

/**
 * A version's content through the `getContent` binding (the latest when `version` is left out), as
 * the document pages take it: the text with what it is (version, hash, who may keep it).
 */
export async function readContent(
  runtime: Runtime,
  request: FastifyRequest,
  artifactId: string,
  version: number | undefined,
  options: OperateOptions = {},
): Promise<Result<ContentRead>> {
  const query = version === undefined ? {} : { version }
  const read = await operate(runtime, request, 'getContent', { params: { artifactId }, query, body: undefined }, options)
  if (!read.ok) return read
  const { value, content } = read.value
  // The binding names every content read's identity; a read without one is a broken binding.
  if (content === undefined) throw new Error('getContent answered without the identity of its content')
  return ok({ ...content, content: value })
}
