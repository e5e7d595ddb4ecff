/** The current time. Tests move this clock, not the calendar. */
export interface Clock {
  now(): Date
}

/** Prefixes of Quire's identifiers. */
export type IdPrefix = 'usr' | 'ws' | 'prj' | 'art' | 'evt' | 'key' | 'shl' | 'agt' | 'inv' | 'ses' | 'tok' | 'cli' | 'whk' | 'whd'

/** Prefixed, sortable, unguessable identifiers (`art_01j…`). */
export interface IdGenerator {
  next(prefix: IdPrefix): string
}

/**
 * SHA-256 of a string's UTF-8 bytes, lowercase hex. Core's default uses Web Crypto (works
 * everywhere, asynchronously); a server passes its platform's synchronous hash, which on the
 * write path is several times cheaper.
 */
export type Sha256 = (text: string) => string | Promise<string>
