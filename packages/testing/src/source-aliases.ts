import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

interface ExportEntry {
  source?: string
}

/**
 * Aliases from every workspace package's export subpaths to their `source` TypeScript files, so
 * that tests (and their global setup) run against sources without a build. Derived from the
 * package.json `exports` maps, so a new entry point needs no change here.
 */
export function sourceAliases(root: string): { find: string; replacement: string }[] {
  const aliases: { find: string; replacement: string }[] = []
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(root, group), { withFileTypes: true })) {
      if (!dir.isDirectory()) continue
      const pkgDir = resolve(root, group, dir.name)
      let manifest: { name?: string; exports?: Record<string, ExportEntry> }
      try {
        manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
      } catch {
        continue
      }
      for (const [subpath, entry] of Object.entries(manifest.exports ?? {})) {
        if (!manifest.name || !entry.source) continue
        aliases.push({ find: `${manifest.name}${subpath.slice(1)}`, replacement: resolve(pkgDir, entry.source) })
      }
    }
  }
  // Longest first, so `@quire/core/contract` wins over `@quire/core`.
  return aliases.sort((a, b) => b.find.length - a.find.length)
}
