import { sha256Hex } from './hash.ts'

/** Prefixes of bearer secrets: they route a token to its verifier and make leaks easy to scan for. */
export const secretPrefixes = {
  apiKey: 'qk_',
  accessToken: 'qat_',
  refreshToken: 'qrt_',
  authorizationCode: 'qac_',
  session: 'qss_',
  shareLink: 'qsl_',
} as const

function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** A fresh secret (256 random bits) with its prefix, its SHA-256 and a short display prefix. */
export async function newSecret(prefix: string): Promise<{ secret: string; hash: string; display: string }> {
  const bytes = new Uint8Array(32)
  crypto.getRandomValues(bytes)
  const secret = `${prefix}${base64url(bytes)}`
  return { secret, hash: await sha256Hex(secret), display: secret.slice(0, prefix.length + 6) }
}
