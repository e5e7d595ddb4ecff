import { type AuditPruner, type Clock, setWorkspacePlan } from '@quire/core'
import { type AuditPruning, type PruneLog, startAuditPruning } from '@quire/runtime'
import { timeoutFor, until } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

const DAY = 86_400_000

/** The injected clock, moved forward by the test: audit events are written and pruned at its time. */
function movableClock(): Clock & { advance(ms: number): void } {
  let now = Date.now()
  return {
    now: () => new Date(now),
    advance(ms) {
      now += ms
    },
  }
}

/** A logger that keeps what it is given, by level. */
function recordingLog() {
  const lines: { level: keyof PruneLog; details: object; message: string }[] = []
  const log: PruneLog = {
    info: (details, message) => lines.push({ level: 'info', details, message }),
    debug: (details, message) => lines.push({ level: 'debug', details, message }),
    error: (details, message) => lines.push({ level: 'error', details, message }),
  }
  return { log, lines }
}

describe(`scheduled audit pruning (${engine})`, () => {
  const clock = movableClock()
  let api: TestApi
  let pruning: AuditPruning | undefined

  beforeAll(async () => {
    api = await startTestApi({ clock })
  })
  afterAll(async () => {
    await pruning?.stop()
    await api.close()
  })

  async function workspaceOf(username: string): Promise<string> {
    const row = await api.runtime.database.db.selectFrom('workspaces').select('id').where('slug', '=', username).executeTakeFirstOrThrow()
    return row.id
  }

  async function actionsIn(workspaceId: string | null): Promise<string[]> {
    const query = api.runtime.database.db.selectFrom('audit_events').select('action').orderBy('at').orderBy('id')
    const rows = await (workspaceId === null
      ? query.where('workspace_id', 'is', null)
      : query.where('workspace_id', '=', workspaceId)
    ).execute()
    return rows.map((r) => r.action)
  }

  /** Waits until `workspaceId`'s trail holds exactly `expected` (packages/testing/src/waits.ts), naming what it holds. */
  async function untilTrail(workspaceId: string, expected: readonly string[]): Promise<void> {
    let held: string[] = []
    await until(
      () => `the trail of ${workspaceId} to hold ${JSON.stringify(expected)} (it holds ${JSON.stringify(held)})`,
      async () => {
        held = await actionsIn(workspaceId)
        return JSON.stringify(held) === JSON.stringify(expected)
      },
    )
  }

  /** Waits until `calls()` reaches `atLeast` (packages/testing/src/waits.ts). */
  const untilCalls = (calls: () => number, atLeast: number) =>
    until(
      () => `${atLeast} pruning runs (${calls()} so far)`,
      () => calls() >= atLeast,
    )

  // Waits: two runs of the schedule.
  it("deletes events past their plan's retention at every interval and keeps the recent ones", { timeout: timeoutFor(2) }, async () => {
    // Day 0: a user on the free plan (7 days), one on pro (90 days), and an event of no workspace.
    const free = await api.user('retention-free@example.com')
    const pro = await api.user('retention-pro@example.com')
    await setWorkspacePlan(api.runtime.operator, { slug: pro.username, plan: 'pro' })
    await api.runtime.database.db
      .insertInto('audit_events')
      .values({
        id: api.runtime.deps.ids.next('evt'),
        at: clock.now(),
        action: 'user.created',
        actor_kind: 'operator',
        actor_id: 'operator',
        actor_label: 'operator',
        via_surface: 'operator',
        via_credential: null,
        via_credential_id: null,
        workspace_id: null,
        artifact_id: null,
        data: JSON.stringify({ note: 'no workspace' }),
      })
      .execute()
    const freeWs = await workspaceOf(free.username)
    const proWs = await workspaceOf(pro.username)
    expect(await actionsIn(freeWs)).toEqual(['user.created', 'api_key.created'])

    // Day 8: the free user writes again; then the schedule starts.
    clock.advance(8 * DAY)
    const project = await api.request('POST', '/api/projects', {
      token: free.token,
      body: { ownerUsername: free.username, slug: 'kept', title: 'Kept', icon: '📝' },
    })
    expect(project.statusCode).toBe(201)
    const { log, lines } = recordingLog()
    pruning = startAuditPruning(api.runtime, { intervalMs: 25, log })

    // The free workspace's week-old events go, and so does the event of no workspace (free too);
    // the day-8 event stays, and the pro workspace keeps everything.
    await untilTrail(freeWs, ['project.created'])
    expect(await actionsIn(null)).toEqual([])
    expect(await actionsIn(proWs)).toEqual(['user.created', 'api_key.created', 'workspace.plan_changed'])
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', details: expect.objectContaining({ pruned: 3 }) }))

    // Day 91: a later run (same schedule) removes the pro workspace's day-0 events, and day 8's.
    clock.advance(83 * DAY)
    await untilTrail(proWs, [])
    expect(await actionsIn(freeWs)).toEqual([])
    expect(lines.filter((l) => l.level === 'error')).toEqual([])

    await pruning.stop()
    pruning = undefined
  })

  // Waits: three runs.
  it('logs a failed run instead of throwing, and the next run goes ahead', { timeout: timeoutFor(1) }, async () => {
    let calls = 0
    const pruner: AuditPruner = {
      prune: async (retention) => {
        calls += 1
        if (calls === 1) throw new Error('connection reset')
        return api.runtime.operator.auditPruner.prune(retention)
      },
    }
    const { log, lines } = recordingLog()
    pruning = startAuditPruning({ operator: { ...api.runtime.operator, auditPruner: pruner } }, { intervalMs: 10, log })
    await untilCalls(() => calls, 3)
    await pruning.stop()
    pruning = undefined
    const errors = lines.filter((l) => l.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]?.details).toMatchObject({ err: expect.objectContaining({ message: 'connection reset' }) })
  })

  // Waits: three runs.
  it('never overlaps runs, and stop waits for the run in progress and starts no other', { timeout: timeoutFor(1) }, async () => {
    let active = 0
    let mostAtOnce = 0
    let calls = 0
    let finished = 0
    const slow: AuditPruner = {
      prune: async (retention) => {
        calls += 1
        active += 1
        mostAtOnce = Math.max(mostAtOnce, active)
        await new Promise((done) => setTimeout(done, 40))
        const result = await api.runtime.operator.auditPruner.prune(retention)
        active -= 1
        finished += 1
        return result
      },
    }
    // Runs take longer than the interval: a timer-per-interval would pile them up.
    pruning = startAuditPruning({ operator: { ...api.runtime.operator, auditPruner: slow } }, { intervalMs: 1, log: recordingLog().log })
    await untilCalls(() => calls, 3)
    await pruning.stop()
    pruning = undefined
    expect(active).toBe(0)
    expect(finished).toBe(calls)
    expect(mostAtOnce).toBe(1)
    // No run after stop: one still armed would be due in 1 ms, and timers fire in the order they are
    // due, so it would come before this 100 ms one however loaded the machine.
    await new Promise((done) => setTimeout(done, 100))
    expect(calls).toBe(finished)
  })

  // Waits: a run.
  it('runs first after `firstRunMs`, or after the interval when that is shorter', { timeout: timeoutFor(1) }, async () => {
    let calls = 0
    const counting: AuditPruner = {
      prune: async (retention) => {
        calls += 1
        return api.runtime.operator.auditPruner.prune(retention)
      },
    }
    const operator = { ...api.runtime.operator, auditPruner: counting }
    const { log } = recordingLog()
    const late = startAuditPruning({ operator }, { intervalMs: 60_000, firstRunMs: 60_000, log })
    const soon = startAuditPruning({ operator }, { intervalMs: 20, firstRunMs: 60_000, log })
    await untilCalls(() => calls, 1)
    await soon.stop()
    const afterSoon = calls
    // As above: a run still armed after stop would be due in 20 ms, before this 100 ms timer.
    await new Promise((done) => setTimeout(done, 100))
    expect(calls).toBe(afterSoon)
    await late.stop()
  })
})
