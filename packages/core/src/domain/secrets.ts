import { secretPrefixes } from '../contract/secret-prefixes.ts'
import { base64url, sha256Hex } from './hash.ts'

export { secretPrefixes }

/** A fresh secret (256 random bits) with its prefix, its SHA-256 and a short display prefix. */
export async function newSecret(prefix: string): Promise<{ secret: string; hash: string; display: string }> {
  const bytes = new Uint8Array(32)
  crypto.getRandomValues(bytes)
  const secret = `${prefix}${base64url(bytes)}`
  return { secret, hash: await sha256Hex(secret), display: secret.slice(0, prefix.length + 6) }
}
