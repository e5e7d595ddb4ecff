import { fail, ok, type Result } from '@quire/core'

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

/** One window of a text: what it holds, and where the next one starts. */
export interface TextWindow {
  readonly content: string
  readonly offset: number
  readonly truncated: boolean
  readonly nextOffset: number | null
}

/** A byte that continues a UTF-8 sequence (10xxxxxx): no character starts there. */
function continues(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80
}

/**
 * At most `maxBytes` of `text`'s UTF-8, from byte `offset`. A window never splits a character:
 * it ends before one that would not fit, so every window decodes on its own and the windows joined
 * are exactly the text. An offset inside a character or past the end is refused.
 */
export function windowOf(text: string, offset: number, maxBytes: number): Result<TextWindow> {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a short text is one window, as it is.
  if (offset === 0 && text.length * 3 <= maxBytes) return ok({ content: text, offset: 0, truncated: false, nextOffset: null })
  const bytes = encoder.encode(text)
  if (offset > bytes.length)
    return fail('validation_failed', `\`offset\` ${offset} is past the end of the content (${bytes.length} bytes).`, {
      errors: [{ path: '/offset', message: `must be at most ${bytes.length}` }],
    })
  if (continues(bytes[offset]))
    return fail('validation_failed', `\`offset\` ${offset} falls inside a character: pass the \`nextOffset\` of the previous window.`, {
      errors: [{ path: '/offset', message: 'must be the start of a character' }],
    })
  let end = Math.min(bytes.length, offset + maxBytes)
  while (end > offset && continues(bytes[end])) end--
  const truncated = end < bytes.length
  return ok({ content: decoder.decode(bytes.subarray(offset, end)), offset, truncated, nextOffset: truncated ? end : null })
}
