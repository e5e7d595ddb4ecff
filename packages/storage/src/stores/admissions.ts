import type { Action, Admission, AdmissionCache, PresentedCredential } from '@quire/core'
import { LRUCache } from 'lru-cache'

/**
 * Recent admissions, per process, for a minute at most. Nothing here is trusted on its own:
 * every write made on an admission carries a guard the database re-checks (see WriteGuard).
 */
export function admissionCache(options: { entries: number; ttlMs: number }): AdmissionCache {
  const cache = new LRUCache<string, Admission>({ max: Math.max(options.entries, 1), ttl: options.ttlMs })
  const key = (credential: PresentedCredential, artifactId: string, action?: Action) =>
    `${credential.secretHash}:${artifactId}:${action ?? ''}`
  return {
    get: (credential, artifactId, action) => cache.get(key(credential, artifactId, action)),
    remember: (credential, artifactId, action, admission) => {
      cache.set(key(credential, artifactId, action), admission)
    },
    forget: (credential, artifactId) => {
      cache.delete(key(credential, artifactId, 'artifact.update'))
    },
  }
}
