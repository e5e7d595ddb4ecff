import type { ActorRef } from '../contract/schemas/common.ts'
import type { ChangeKind } from '../contract/schemas/events.ts'

/** What a follower follows: one artifact, one project's artifacts or one workspace's; or every change (the webhook worker). */
export type ChangeScope =
  | { readonly artifactId: string }
  | { readonly projectId: string }
  | { readonly workspaceId: string }
  | { readonly every: true }

/** One numbered change (stored by the change's own transaction, numbered after its commit). */
export interface ChangeRecord {
  /** The event id: its place in the one ordered stream of changes. */
  readonly position: number
  /** The audit event it comes from (`evt_…`). */
  readonly eventId: string
  readonly at: Date
  readonly kind: ChangeKind
  readonly artifactId: string
  readonly projectId: string
  readonly workspaceId: string
  readonly versionNumber: number | null
  readonly actor: ActorRef
}

/** The changes of a scope after a position, and where the whole stream stood when they were read. */
export interface ChangesAfter {
  /** Oldest first, at most the limit asked for. */
  readonly rows: readonly ChangeRecord[]
  /** The last numbered position of the whole stream in the same snapshot (0 when empty). */
  readonly head: number
}

/**
 * The ordered stream of changes and a way to wait for the next one. Waiting is per process: the
 * adapter hears of new changes (a notification, or a poll when that is lost) and wakes the waits
 * whose scope they touch.
 */
export interface ChangeStore {
  after(scope: ChangeScope, position: number, limit: number): Promise<ChangesAfter>
  /**
   * Resolves once a change of the scope past `position` may be read, or after `timeoutMs`, or when
   * `signal` aborts; it may resolve early (the caller reads again and waits again).
   */
  wait(scope: ChangeScope, position: number, timeoutMs: number, signal?: AbortSignal): Promise<void>
}
