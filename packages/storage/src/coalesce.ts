/**
 * Lookups asked for in the same turn of the event loop, answered by one statement.
 *
 * Under load, the requests a server reads off its sockets in one poll phase all want the same
 * kind of row (a credential and an artifact, say). Asked one by one, each costs a round trip: a
 * write to the database socket, a backend woken up, an executor started. Asked together, they
 * cost one. `load` queues an item; the queue is sent when the loop reaches its check phase
 * (`setImmediate`), so a lone request waits for nothing but the end of the turn it arrived in,
 * and a statement is never joined once it has left: every answer is at least as fresh as the
 * request that asked for it.
 *
 * One bad item must not fail its neighbours: when a batch of several fails with an error one item
 * can cause (`isolate` says which), each of its items is asked again on its own, and only the ones
 * that fail alone are rejected. Any other failure (the database is gone) fails the batch once,
 * without an extra attempt per waiting request.
 */
export type Lookup<I, R> = (item: I) => Promise<R | undefined>

/** Answers a batch: `results[i]` belongs to `items[i]` (undefined when nothing matched). */
export type BatchStatement<I, R> = (items: readonly I[]) => Promise<readonly (R | undefined)[]>

interface Waiting<I, R> {
  readonly item: I
  readonly resolve: (row: R | undefined) => void
  readonly reject: (error: unknown) => void
}

export interface CoalesceOptions {
  /** At most this many items share a statement (a larger turn sends several). */
  readonly maxBatch: number
  /** True for a failure that one item can cause (then each item is asked alone). */
  readonly isolate: (error: unknown) => boolean
}

export function coalesce<I, R>(statement: BatchStatement<I, R>, options: CoalesceOptions): Lookup<I, R> {
  let queued: Waiting<I, R>[] = []

  async function settle(batch: readonly Waiting<I, R>[]): Promise<void> {
    let results: readonly (R | undefined)[]
    try {
      results = await statement(batch.map((w) => w.item))
    } catch (error) {
      if (batch.length > 1 && options.isolate(error)) for (const waiting of batch) void settle([waiting])
      else for (const waiting of batch) waiting.reject(error)
      return
    }
    batch.forEach((waiting, i) => {
      waiting.resolve(results[i])
    })
  }

  function send(): void {
    const batch = queued
    queued = []
    for (let start = 0; start < batch.length; start += options.maxBatch) void settle(batch.slice(start, start + options.maxBatch))
  }

  return (item) =>
    new Promise<R | undefined>((resolve, reject) => {
      if (queued.push({ item, resolve, reject }) === 1) setImmediate(send)
    })
}
