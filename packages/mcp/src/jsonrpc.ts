import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js'

/**
 * What a JSON-RPC message of MCP is, checked as the SDK's `JSONRPCMessageSchema` checks it (the
 * same four strict shapes, the same id and `_meta` rules) by plain property tests: the stateless
 * HTTP path checks every message, and the SDK's zod union cost more than the rest of the envelope.
 * `test/jsonrpc.test.ts` holds this to the SDK's schema on generated messages.
 */
export type MessageKind = 'request' | 'notification' | 'response'

/** A JSON-RPC request of MCP, as `kindOf` admitted it. */
export interface RpcRequest {
  readonly jsonrpc: '2.0'
  readonly id: string | number
  readonly method: string
  readonly params?: Record<string, unknown>
}

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A request id or progress token: a string or an integer (JSON-RPC's null id is not MCP's). */
export function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))
}

/** `_meta` of a request, a notification or a result: an object whose progress token and related task, when present, are well-formed. */
function isMeta(value: unknown): boolean {
  if (!isObject(value)) return false
  if (value.progressToken !== undefined && !isRequestId(value.progressToken)) return false
  const related = value[RELATED_TASK_META_KEY]
  return related === undefined || (isObject(related) && typeof related.taskId === 'string')
}

/** Absent, or an object whose `_meta` (when present) is well-formed. */
function isParams(value: unknown): boolean {
  return value === undefined || (isObject(value) && (value._meta === undefined || isMeta(value._meta)))
}

/** Whether every own key of `message` is one of `allowed` (the SDK's message shapes are strict). */
function onlyKeys(message: Json, allowed: ReadonlySet<string>): boolean {
  for (const key in message) if (Object.hasOwn(message, key) && !allowed.has(key)) return false
  return true
}

const requestKeys = new Set(['jsonrpc', 'id', 'method', 'params'])
const notificationKeys = new Set(['jsonrpc', 'method', 'params'])
const resultKeys = new Set(['jsonrpc', 'id', 'result'])
const errorKeys = new Set(['jsonrpc', 'id', 'error'])

/** The kind of a JSON-RPC message of MCP, or null when `message` is none (an invalid request). */
export function kindOf(message: unknown): MessageKind | null {
  if (!isObject(message) || message.jsonrpc !== '2.0') return null
  if (typeof message.method === 'string') {
    if (!isParams(message.params)) return null
    if (isRequestId(message.id) && onlyKeys(message, requestKeys)) return 'request'
    return message.id === undefined && onlyKeys(message, notificationKeys) ? 'notification' : null
  }
  if (message.method !== undefined) return null
  if (message.result !== undefined)
    return isRequestId(message.id) &&
      isObject(message.result) &&
      (message.result._meta === undefined || isMeta(message.result._meta)) &&
      onlyKeys(message, resultKeys)
      ? 'response'
      : null
  const { error } = message
  return (message.id === undefined || isRequestId(message.id)) &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string' &&
    onlyKeys(message, errorKeys)
    ? 'response'
    : null
}

/**
 * The `params` of a `tools/call`, checked as the SDK's `CallToolRequestParamsSchema` checks them
 * (a string `name`, `arguments` an object when present, `task` an object whose `ttl` is a number),
 * or null. The request's envelope (`_meta`) was checked by `kindOf`.
 */
export function toolCallParams(params: Json | undefined): { name: string; arguments: Json | undefined } | null {
  if (params === undefined || typeof params.name !== 'string') return null
  const args = params.arguments
  if (args !== undefined && !isObject(args)) return null
  const task = params.task
  if (task !== undefined && !(isObject(task) && (task.ttl === undefined || typeof task.ttl === 'number'))) return null
  return { name: params.name, arguments: args }
}
