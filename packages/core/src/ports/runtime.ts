/** The current time. Tests move this clock, not the calendar. */
export interface Clock {
  now(): Date
}

/** Prefixes of Quire's identifiers. */
export type IdPrefix = 'usr' | 'ws' | 'prj' | 'art' | 'evt' | 'key' | 'shl' | 'agt' | 'inv' | 'ses' | 'tok' | 'cli'

/** Prefixed, sortable, unguessable identifiers (`art_01j…`). */
export interface IdGenerator {
  next(prefix: IdPrefix): string
}
