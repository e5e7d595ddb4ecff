import { typeid } from 'typeid-js'
import type { IdGenerator, IdPrefix } from '../ports/runtime.ts'

/** TypeIDs: `art_` + a UUIDv7 in base32 (time-sortable, 74 random bits). */
export function createIdGenerator(): IdGenerator {
  return { next: (prefix: IdPrefix) => typeid(prefix).toString() }
}

export const systemClock = { now: () => new Date() }
