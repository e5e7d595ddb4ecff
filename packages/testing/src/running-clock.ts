import type { Clock } from '@quire/core'

/** A clock that runs with the real one, and that a test moves forward. */
export interface RunningClock extends Clock {
  /** Moves the clock `ms` forward; it runs on from there. */
  advance(ms: number): void
}

/**
 * The clock the use-cases read (`startTestWeb({ clock })`), for a test that needs time to pass: what
 * expires expires when the test moves the clock past it, not after a wait that a loaded machine can
 * outrun (the expiry passing before the test looked) or the test line pays for. Until it is moved,
 * it is the real time, so everything else the test does (what is newer, what comes first) happens
 * as it would.
 */
export function runningClock(): RunningClock {
  let ahead = 0
  return {
    now: () => new Date(Date.now() + ahead),
    advance(ms) {
      ahead += ms
    },
  }
}
