import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkBoundaries } from '../scripts/boundaries.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function workspace(units: Record<string, { deps?: string[]; files?: Record<string, string> }>): string {
  const root = mkdtempSync(join(tmpdir(), 'boundaries-'))
  dirs.push(root)
  for (const [path, unit] of Object.entries(units)) {
    const name = `@quire/${path.split('/')[1]}`
    mkdirSync(join(root, path, 'src'), { recursive: true })
    writeFileSync(
      join(root, path, 'package.json'),
      JSON.stringify({ name, dependencies: Object.fromEntries((unit.deps ?? []).map((d) => [d, 'workspace:*'])) }),
    )
    for (const [file, text] of Object.entries(unit.files ?? { 'index.ts': 'export const x = 1\n' }))
      writeFileSync(join(root, path, 'src', file), text)
  }
  return root
}

describe('the package boundary check', () => {
  it('passes on this repository', () => {
    expect(checkBoundaries(resolve(import.meta.dirname, '../..'))).toEqual([])
  })

  it('refuses a dependency against the arrows', () => {
    const root = workspace({ 'packages/core': { deps: ['@quire/storage'] }, 'packages/storage': { deps: ['@quire/core'] } })
    expect(checkBoundaries(root)).toEqual(['@quire/core may not depend on @quire/storage (allowed: none).'])
  })

  it('refuses a package depending on an app, and an undeclared import', () => {
    const root = workspace({
      'packages/authz': { deps: ['@quire/api'], files: { 'a.ts': "import { x } from '@quire/core'\n" } },
      'apps/api': {},
    })
    expect(checkBoundaries(root)).toEqual([
      '@quire/authz depends on the app @quire/api: nothing may depend on an app.',
      'packages/authz/src/a.ts imports @quire/core, which @quire/authz does not declare.',
    ])
  })

  it('lets no app depend on another, the web app included: both run on @quire/server', () => {
    const root = workspace({
      'apps/api': {},
      'apps/web': { deps: ['@quire/api', '@quire/server'] },
      'packages/server': {},
    })
    expect(checkBoundaries(root)).toEqual(['@quire/web depends on the app @quire/api: nothing may depend on an app.'])
  })

  it('refuses process.env outside env.ts, and export *', () => {
    const root = workspace({
      'packages/core': { files: { 'a.ts': 'export const port = process.env.PORT\n', 'index.ts': "export * from './a.ts'\n" } },
      'apps/api': { files: { 'env.ts': 'export const e = process.env\n' } },
    })
    expect(checkBoundaries(root)).toEqual([
      "packages/core/src/a.ts reads process.env: only apps' env.ts and the CLI's config may; pass configuration in as arguments.",
      'packages/core/src/index.ts uses `export *`: name the exports.',
    ])
  })
})
