import { isQuireApiError, type QuireClient } from '@quire/client'
import { type Binding, bindings, type Caller, type CoreDeps, fail, type OperationId, type Result } from '@quire/core'
import type { OperationCall } from './tools/compile.ts'

/**
 * How a tool's operation runs: on this server, through the binding table (the same use-case,
 * the same `decide()`, the same audit write as REST), or on a remote Quire through the REST
 * client (stdio). Either way the answer is the operation's output or a failure with its code.
 */
export type Execute = (call: OperationCall) => Promise<Result<unknown>>

/** Runs operations here, as `caller` (the web app's `/mcp`). */
export function bindingExecutor(deps: CoreDeps, caller: Caller): Execute {
  return async ({ operation, input, idempotencyKey }) => {
    const bind = bindings[operation] as Binding<OperationId>
    const result = await bind(deps, caller, input as never, { idempotencyKey })
    return result.ok ? { ok: true, value: result.value.value } : result
  }
}

/** Runs operations on a remote Quire over REST (`quire mcp`); its problems come back as failures with the same codes. */
export function clientExecutor(client: QuireClient): Execute {
  return async ({ operation, input, idempotencyKey }) => {
    try {
      const options = idempotencyKey === undefined ? {} : { idempotencyKey }
      const value = await (client.call as (id: OperationId, input: unknown, options: unknown) => Promise<unknown>)(
        operation,
        input,
        options,
      )
      return { ok: true, value }
    } catch (error) {
      if (isQuireApiError(error)) {
        const {
          type: _type,
          title: _title,
          status: _status,
          code,
          detail,
          requestId: _requestId,
          errors,
          scope,
          ...meta
        } = error.problem as Record<string, unknown>
        return fail(error.code, error.detail, {
          meta,
          ...(Array.isArray(errors) ? { errors: errors as { path: string; message: string }[] } : {}),
          ...(typeof scope === 'string' ? { scope } : {}),
        })
      }
      const message = error instanceof Error ? error.message : String(error)
      return fail('service_unavailable', `Quire could not be reached: ${message}`)
    }
  }
}
