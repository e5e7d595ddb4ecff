import type { OperationId } from '@quire/core'
import type { TSchema } from 'typebox'

/**
 * Where a tool's input field goes in its operation's input: a path parameter, a query parameter,
 * a body field, the whole body (`set_artifact_access`'s `access`), or the idempotency key of a
 * write (REST's `Idempotency-Key` header).
 */
export type FieldSource = `params.${string}` | `query.${string}` | `body.${string}` | 'body' | 'idempotencyKey'

/** A field a tool takes beyond its operation's input (a window offset), with its own schema. */
export interface ExtraField {
  readonly schema: TSchema
}

/**
 * One row of the tool table: the spec's tool name and input fields, which operation of the
 * operation table it runs, and the words an agent chooses it by. Input and output schemas, the
 * annotations and the required scope all come from the operation's row.
 */
export interface ToolSpec {
  /** The spec's tool name. */
  readonly name: string
  /** A short human name, shown by hosts. */
  readonly title: string
  /** When to use the tool and what it returns, for an agent choosing between tools. */
  readonly description: string
  /** The operation the tool runs. */
  readonly operation: OperationId
  /**
   * Another operation the tool runs when one of its optional fields is left out
   * (`resolve_path` without `slug` resolves the project).
   */
  readonly without?: { readonly field: string; readonly operation: OperationId }
  /** The spec's input fields, in the spec's order, and where each goes in the operation's input. */
  readonly fields: Readonly<Record<string, FieldSource>>
  /**
   * Fields beyond the spec's list: the operation's pagination (`limit`, `cursor`) where the spec
   * lists none, the idempotency key of a write, a content window's `offset`.
   */
  readonly extensions?: Readonly<Record<string, FieldSource | ExtraField>>
  /** Fields the operation's schema leaves optional that the tool requires (the operation then refuses their absence anyway). */
  readonly require?: readonly string[]
}

export function defineTool<const T extends ToolSpec>(spec: T): T {
  return spec
}
