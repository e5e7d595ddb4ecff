import { type OperationId, type OperationOutput, type OperationSpec, type Operations, operations, type Result } from '@quire/core'
import { type TObject, type TSchema, Type } from 'typebox'
import { windowOf } from '../content-window.ts'
import type { ToolSpec } from './define.ts'
import { CONTENT_WINDOW_BYTES } from './table.ts'

const ContentWindow = Type.Object({
  ...(operations.getContent.success.schema as TObject).properties,
  content: Type.String({ description: 'This window of the source text: all of it unless `truncated`.' }),
  offset: Type.Integer({ minimum: 0, description: 'Where this window starts, in bytes of UTF-8.' }),
  truncated: Type.Boolean({ description: 'True when the content goes on past this window: call again with `offset` = `nextOffset`.' }),
  nextOffset: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'The `offset` of the next window; null when this window reaches the end.',
  }),
})

const ResolvedPath = Type.Object({
  kind: Type.Union([Type.Literal('project'), Type.Literal('artifact')], {
    description: '`artifact` when `slug` was given, else `project`.',
  }),
  project: Type.Optional({ ...operations.resolveProjectPath.success.schema, description: 'The project, when `kind` is `project`.' }),
  artifact: Type.Optional({ ...operations.resolveArtifactPath.success.schema, description: 'The artifact, when `kind` is `artifact`.' }),
})

/** The output schema of a tool: its operation's answer, except where the tool shapes it (a content window, a resolved path). */
export function outputOf(spec: ToolSpec): TSchema {
  if (spec.operation === 'getContent') return ContentWindow
  if (spec.name === 'resolve_path') return ResolvedPath
  const op: OperationSpec = operations[spec.operation]
  // A write with `dryRun` answers either its result or, for a dry run, the preview.
  if (op.dryRun)
    return {
      type: 'object',
      anyOf: [op.success.schema, op.dryRun.schema],
      description: 'The result of the write; with `dryRun: true`, what it would do (`dryRun` is then true).',
    } as unknown as TSchema
  return op.success.schema
}

/** The tool's `structuredContent` from its operation's answer (and the arguments, for a window). */
export function shapeOutput(spec: ToolSpec, operation: OperationId, value: unknown, args: Record<string, unknown>): Result<unknown> {
  if (spec.operation === 'getContent') {
    const read = value as OperationOutput<Operations['getContent']>
    const window = windowOf(read.content, typeof args.offset === 'number' ? args.offset : 0, CONTENT_WINDOW_BYTES)
    if (!window.ok) return window
    return { ok: true, value: { ...read, ...window.value } }
  }
  if (spec.name === 'resolve_path') {
    return {
      ok: true,
      value: operation === 'resolveProjectPath' ? { kind: 'project', project: value } : { kind: 'artifact', artifact: value },
    }
  }
  return { ok: true, value }
}
