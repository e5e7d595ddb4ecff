/**
 * User codes (RFC 8628 §6.1): 8 characters from 20 consonants (no vowels, so no words; no
 * look-alikes), shown as `BCDF-GHJK`. About 34.6 bits: enough for a 10-minute code behind a
 * per-person lockout. Typed case-insensitively; hyphens and spaces are ignored.
 */
export const userCodeAlphabet = 'BCDFGHJKLMNPQRSTVWXZ'
export const userCodeLength = 8

// The largest multiple of 20 that fits in a byte: bytes at or above it are redrawn (no modulo bias).
const acceptBelow = 256 - (256 % userCodeAlphabet.length)

/** A fresh code in its normalised form (8 upper-case letters, no hyphen). */
export function generateUserCode(random: (bytes: Uint8Array<ArrayBuffer>) => void = (b) => crypto.getRandomValues(b)): string {
  let code = ''
  const buffer = new Uint8Array(16)
  while (code.length < userCodeLength) {
    random(buffer)
    for (const byte of buffer) {
      if (byte >= acceptBelow) continue
      code += userCodeAlphabet[byte % userCodeAlphabet.length]
      if (code.length === userCodeLength) break
    }
  }
  return code
}

const validCode = new RegExp(`^[${userCodeAlphabet}]{${userCodeLength}}$`)

/**
 * A code as typed, normalised: `bcdf-ghjk`, `BCDF GHJK` → `BCDFGHJK`. Null when it is not 8
 * letters of the alphabet (the caller answers as for an unknown code).
 */
export function normaliseUserCode(input: string): string | null {
  if (typeof input !== 'string' || input.length > 64) return null
  const code = input.replace(/[\s\-\u2010-\u2015\u2212]/g, '').toUpperCase()
  return validCode.test(code) ? code : null
}

/** The code as people read it: `BCDFGHJK` → `BCDF-GHJK`. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}
