import { describe, expect, it } from 'vitest'
import { type BatchStatement, coalesce } from '../src/coalesce.ts'

class BadItem extends Error {}

/** A statement that records each batch it is sent and answers `item * 10`, failing on negatives. */
function recorder() {
  const batches: number[][] = []
  const statement: BatchStatement<number, number> = async (items) => {
    batches.push([...items])
    if (items.some((x) => x < 0)) throw new BadItem(`bad item in ${items.join(',')}`)
    return items.map((x) => (x === 0 ? undefined : x * 10))
  }
  return { batches, statement }
}

const options = (maxBatch: number) => ({ maxBatch, isolate: (error: unknown) => error instanceof BadItem })

const nextTurn = () => new Promise((done) => setImmediate(done))

describe('coalesce', () => {
  it('sends the lookups of one event-loop turn as one batch, and gives each its own answer', async () => {
    const { batches, statement } = recorder()
    const load = coalesce(statement, options(100))
    const answers = await Promise.all([load(3), load(1), load(0), load(2)])
    expect(answers).toEqual([30, 10, undefined, 20])
    expect(batches).toEqual([[3, 1, 0, 2]])
  })

  it('never adds to a batch once it has left: a later turn gets a statement of its own', async () => {
    const { batches, statement } = recorder()
    const load = coalesce(statement, options(100))
    const first = load(1)
    await nextTurn()
    const second = load(2)
    expect(await Promise.all([first, second])).toEqual([10, 20])
    expect(batches).toEqual([[1], [2]])
  })

  it('splits a turn larger than the largest batch', async () => {
    const { batches, statement } = recorder()
    const load = coalesce(statement, options(3))
    const answers = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((x) => load(x)))
    expect(answers).toEqual([10, 20, 30, 40, 50, 60, 70])
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]])
  })

  it('fails only the item that fails on its own, not its neighbours', async () => {
    const { batches, statement } = recorder()
    const load = coalesce(statement, options(100))
    const settled = await Promise.allSettled([load(1), load(-1), load(2)])
    expect(settled[0]).toEqual({ status: 'fulfilled', value: 10 })
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: { message: 'bad item in -1' } })
    expect(settled[2]).toEqual({ status: 'fulfilled', value: 20 })
    expect(batches).toEqual([[1, -1, 2], [1], [-1], [2]])
  })

  it('fails the whole batch once, asking nothing again, when the statement cannot run at all', async () => {
    let attempts = 0
    const load = coalesce<number, number>(async () => {
      attempts++
      throw new Error('database unreachable')
    }, options(100))
    const settled = await Promise.allSettled([load(1), load(2), load(3)])
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(attempts).toBe(1)
  })
})
