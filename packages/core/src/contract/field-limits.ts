import type { OperationSpec } from './operation.ts'
import { type OperationId, operations } from './operations/index.ts'

/** What a form field may hold, as its operation's schema says (a form's `maxlength` and the like). */
export interface FieldLimits {
  readonly maxLength?: number
  readonly minLength?: number
  readonly pattern?: string
}

/**
 * The limits of one field of an operation's input, read from its schema: `pointer` names the part
 * and the field (`/body/name`). Throws when the operation has no such field, so a form cannot
 * quietly lose its limit when the contract changes.
 */
export function fieldLimits(id: OperationId, pointer: string): FieldLimits {
  const [part, ...names] = pointer.split('/').slice(1)
  const op: OperationSpec = operations[id]
  let schema = (part === 'params' || part === 'query' || part === 'body' ? op[part] : undefined) as Record<string, unknown> | undefined
  for (const name of names) schema = (schema?.properties as Record<string, Record<string, unknown>> | undefined)?.[name]
  if (!schema || names.length === 0) throw new Error(`${id} has no field ${pointer}`)
  const { maxLength, minLength, pattern } = schema as FieldLimits
  return {
    ...(maxLength === undefined ? {} : { maxLength }),
    ...(minLength === undefined ? {} : { minLength }),
    ...(pattern === undefined ? {} : { pattern }),
  }
}
