import { auditActions, type OperationId, operations } from '@quire/core/contract'
import type { CommandSpec, OptionSpec } from '../types.ts'

/*
 * The shapes every row takes, and the flags many rows share. A row says what the spec's table
 * says (path, summary, the operation it calls, its flags) and little else.
 */

/** A read that prints one object. */
export function show(path: CommandSpec['path'], summary: string, operation: OperationId, options: OptionSpec[] = []): CommandSpec {
  return { path, summary, operation, options, mutates: false, output: 'object' }
}

/** A read of one page of a list (`--limit`, `--cursor`; `--ndjson` walks every page). */
export function list(
  path: CommandSpec['path'],
  summary: string,
  operation: OperationId,
  columns: readonly string[],
  options: OptionSpec[] = [],
): CommandSpec {
  return { path, summary, operation, options: [...options, limit, cursor], mutates: false, output: 'list', columns }
}

/** A write (`--dry-run` applies); destructive ones, as the operation table says, need --yes when they cannot ask. */
export function change(path: CommandSpec['path'], summary: string, operation: OperationId, options: OptionSpec[]): CommandSpec {
  return { path, summary, operation, options, mutates: true, output: 'object', destructive: operations[operation].hints.destructive }
}

/** A required id in the path: `--artifact-id` → `params.artifactId`. */
export function idFlag(name: string, param: string, description: string): OptionSpec {
  return { name, type: 'string', required: true, description, to: `params.${param}` }
}

/** The request body as JSON: inline, @file, or - for standard input. */
export function jsonFlag(what: string): OptionSpec {
  return {
    name: 'json',
    type: 'string',
    required: true,
    description: `${what} as JSON: inline, @file, or - for standard input`,
    to: 'body',
  }
}

export const limit: OptionSpec = {
  name: 'limit',
  type: 'number',
  description: 'Items per page (with --ndjson: per request)',
  to: 'query.limit',
}
export const cursor: OptionSpec = {
  name: 'cursor',
  type: 'string',
  description: 'Start after this cursor (from a previous page)',
  to: 'query.cursor',
}
export const artifactId = idFlag('artifact-id', 'artifactId', 'Artifact id (art_…)')
export const workspaceId = idFlag('workspace-id', 'workspaceId', 'Workspace id (ws_…)')

/** `--action`: only the audit events of one kind. */
export const auditAction: OptionSpec = {
  name: 'action',
  type: 'string',
  choices: auditActions,
  description: 'Only events of this kind (e.g. artifact.version_created)',
  to: 'query.action',
}

/** `--owner`, `--project-slug`, `--slug`: an address in the path. */
export const owner = idFlag('owner', 'owner', 'Owner namespace (username or workspace slug)')
export const projectSlug = idFlag('project-slug', 'projectSlug', 'Project slug')
export const slugOf = (what: 'Project' | 'Artifact') => idFlag('slug', 'slug', `${what} slug`)
