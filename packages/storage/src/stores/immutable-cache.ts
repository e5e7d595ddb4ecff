import type { VersionRecord } from '@quire/core'
import { LRUCache } from 'lru-cache'

/**
 * Versions and content never change once written (content is addressed by its SHA-256), so any
 * process may keep what it has seen. Nothing mutable is cached here: whether an artifact still
 * exists and who may read it is asked of the database on every call.
 */
export class ImmutableCache {
  readonly #versions: LRUCache<string, VersionRecord>
  readonly #contents: LRUCache<string, string>

  constructor(options: { contentBytes: number; versions: number }) {
    this.#versions = new LRUCache({ max: Math.max(options.versions, 1) })
    this.#contents = new LRUCache({ maxSize: Math.max(options.contentBytes, 1), sizeCalculation: (body) => Math.max(body.length * 2, 1) })
  }

  version(artifactId: string, number: number): VersionRecord | undefined {
    return this.#versions.get(`${artifactId}:${number}`)
  }

  rememberVersion(version: VersionRecord): void {
    this.#versions.set(`${version.artifactId}:${version.number}`, version)
  }

  content(sha256: string): string | undefined {
    return this.#contents.get(sha256)
  }

  rememberContent(sha256: string, body: string): void {
    this.#contents.set(sha256, body)
  }
}
