import type { Static, TObject, TSchema } from 'typebox'
import { type Action, scopeFor } from './actions.ts'
import type { ErrorCode } from './errors.ts'
import type { Scope } from './scopes.ts'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

/** Behaviour hints shared by every surface (MCP annotations, CLI `mutates`, OpenAPI). */
export interface OperationHints {
  /** Reads only; never changes state. */
  readonly readOnly: boolean
  /** May destroy or hide data (delete, access changes). */
  readonly destructive: boolean
  /** Repeating the same call has no further effect. */
  readonly idempotent: boolean
}

/**
 * One row of the operation table: everything every surface needs to know about one REST
 * operation. Routes, OpenAPI, the client, the CLI and MCP tools are derived from these rows.
 */
export interface OperationSpec {
  readonly method: HttpMethod
  /** Fastify-style path with `:param` segments. */
  readonly path: string
  readonly summary: string
  readonly description?: string
  readonly tags: readonly string[]
  /** The authorization action, or null for operations open to everyone (health). */
  readonly action: Action | null
  /**
   * Further actions the caller must also be allowed, because what the operation answers or makes
   * gives what they give: a share link reads the artifact (`artifact.read`), an access change
   * answers the settings (`artifact.access.read`). The use-case asks the one policy for each, on
   * the facts it admitted the call on; every surface's list of scopes is derived from `action` and
   * these (`scopesOf`). A need that depends on the input (an editor link also writes) is the
   * use-case's, and the `description` says so.
   */
  readonly alsoNeeds?: readonly Action[]
  /** True when an anonymous caller can succeed (reads of public artifacts). */
  readonly anonymous: boolean
  readonly params?: TObject
  readonly query?: TObject
  readonly body?: TSchema
  /** The body may be omitted entirely (it is then treated as `{}`). */
  readonly bodyOptional?: boolean
  /** Accepts an `Idempotency-Key` header (POST writes). */
  readonly idempotencyKey?: boolean
  readonly success: { readonly status: 200 | 201; readonly schema: TSchema }
  /**
   * Where what a create made can be read: another operation of the table (by id) and, for each of
   * its path parameters, the field of this operation's output that fills it. REST answers it as
   * `Location`, built from that operation's `path`.
   */
  readonly location?: { readonly operation: string; readonly params: Readonly<Record<string, string>> }
  /** The answer says which version's bytes it holds: REST serves it with an ETag and answers `If-None-Match` with 304. */
  readonly conditional?: boolean
  /**
   * The write takes `dryRun=true` in its query (`DryRunQuery`): every check of the write runs, nothing
   * is written, and the answer is 200 with this schema instead of `success`.
   */
  readonly dryRun?: { readonly schema: TSchema }
  /** Errors specific to this operation (the common ones are implied for every operation). */
  readonly errors: readonly ErrorCode[]
  readonly hints: OperationHints
}

/** Errors any operation may answer with. */
export const commonErrors = [
  'validation_failed',
  'unauthenticated',
  'invalid_token',
  'rate_limited',
  'internal_error',
] as const satisfies readonly ErrorCode[]

/** Declares an operation, keeping its literal schema types for inference. */
export function defineOperation<const T extends OperationSpec>(spec: T): T {
  return spec
}

type StaticOf<S> = S extends TSchema ? Static<S> : undefined

/** The validated input of an operation: path params, query and body. */
export interface OperationInput<T extends OperationSpec> {
  params: StaticOf<T['params']>
  query: StaticOf<T['query']>
  body: StaticOf<T['body']>
}

/** The success body of an operation. */
export type OperationOutput<T extends OperationSpec> = Static<T['success']['schema']>

/** What a dry run of an operation answers (`never` for an operation without one). */
export type OperationDryRunOutput<T extends OperationSpec> = T extends { readonly dryRun: { readonly schema: infer S } }
  ? StaticOf<S>
  : never

/** Every action the caller must be allowed for an operation: its own, then those it also needs. */
export function actionsOf(op: Pick<OperationSpec, 'action' | 'alsoNeeds'>): Action[] {
  return op.action === null ? [] : [op.action, ...(op.alsoNeeds ?? [])]
}

/**
 * Every scope a token needs for an operation, once each, in the order they are checked (its own
 * action's first): OpenAPI's `security`, the MCP edge's check, the CLI's help and the tests read it.
 */
export function scopesOf(op: Pick<OperationSpec, 'action' | 'alsoNeeds'>): Scope[] {
  return [...new Set(actionsOf(op).flatMap((action) => scopeFor(action) ?? []))]
}

/** All error codes an operation may answer with, common ones included. */
export function errorsOf(op: OperationSpec): ErrorCode[] {
  return [...new Set<ErrorCode>([...commonErrors, ...op.errors])]
}
