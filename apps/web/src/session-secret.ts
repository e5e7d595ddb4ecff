import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { WebEnv } from './env.ts'

/**
 * The secret behind session cookies and CSRF tokens: SESSION_SECRET when set (always in
 * production, see env.ts), else one generated on first start and kept in the data directory, so
 * that sessions survive a restart of a local Quire. Readable by its owner only.
 */
export function sessionSecretOf(env: Pick<WebEnv, 'SESSION_SECRET' | 'QUIRE_DATA_DIR'>): string {
  if (env.SESSION_SECRET) return env.SESSION_SECRET
  const path = resolve(env.QUIRE_DATA_DIR, 'session-secret')
  try {
    const kept = readFileSync(path, 'utf8').trim()
    if (kept.length >= 32) return kept
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  mkdirSync(env.QUIRE_DATA_DIR, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(path, `${secret}\n`, { mode: 0o600 })
  return secret
}
