import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { finish, spawnTracked } from '@quire/testing/processes'
import { timeoutFor } from '@quire/testing/waits'
import { afterEach, describe, expect, it } from 'vitest'
import { checkBoundaries, cyclesOf } from '../scripts/boundaries.ts'

const fixtures = join(import.meta.dirname, 'fixtures/boundaries')
const checkDeps = join(import.meta.dirname, '../scripts/check-deps.ts')

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
    for (const [file, text] of Object.entries(unit.files ?? { 'index.ts': 'export const x = 1\n' })) {
      mkdirSync(dirname(join(root, path, 'src', file)), { recursive: true })
      writeFileSync(join(root, path, 'src', file), text)
    }
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

  it('lets no app depend on another, the web app included: both run on @quire/runtime', () => {
    const root = workspace({
      'apps/api': {},
      'apps/web': { deps: ['@quire/api', '@quire/runtime'] },
      'packages/runtime': {},
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

  it('refuses a dependency on the test harness: tests reach it through the root', () => {
    const root = workspace({ 'apps/api': { deps: ['@quire/testing'] }, 'packages/testing': {} })
    expect(checkBoundaries(root)).toEqual([
      "@quire/api depends on the test harness @quire/testing: only tests use it (through the root's devDependencies).",
    ])
  })
})

describe('import cycles inside a package or app', () => {
  it('fails on the fixture with a cycle, naming its files in import order (a type-only import closes it)', () => {
    expect(checkBoundaries(join(fixtures, 'cycle'))).toEqual([
      'Import cycle in packages/core/src: layout.ts imports theme.ts, which imports render.ts, which imports layout.ts.',
    ])
  })

  it('makes `pnpm check` fail on it: check-deps exits 1 and says the sentence', { timeout: timeoutFor(1) }, async () => {
    const result = await finish(spawnTracked(process.execPath, [checkDeps, join(fixtures, 'cycle')], { stdio: ['pipe', 'pipe', 'pipe'] }))
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('  - Import cycle in packages/core/src: layout.ts imports theme.ts, which imports render.ts')
  })

  it('counts re-exports, side-effect and dynamic imports, across folders; not imports in comments or strings', () => {
    const root = workspace({
      'apps/web': {
        files: {
          'index.ts': "export { page } from './pages/page.ts'\n",
          'pages/page.ts': "import '../plugins/setup.ts'\nexport const page = 1\n",
          'plugins/setup.ts': "export const load = () => import('../index.ts')\n",
          'quiet.ts': "// import { page } from './index.ts'\nexport const text = \"import { x } from './quiet.ts'\"\n",
        },
      },
    })
    expect(checkBoundaries(root)).toEqual([
      'Import cycle in apps/web/src: index.ts imports pages/page.ts, which imports plugins/setup.ts, which imports index.ts.',
    ])
  })

  it('lists every elementary cycle of a tangle once', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['a', 'd']],
    ])
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c'], ['a', 'b', 'c', 'd'], ['d']])
  })
})

describe('upward imports', () => {
  it('fails on the fixture importing tooling/ from a package, and its build configuration importing the product', () => {
    expect(checkBoundaries(join(fixtures, 'upward'))).toEqual([
      'packages/core/test/helper.ts imports ../../../tooling/harness.ts: nothing in packages/ or apps/ may import tooling/ (build configuration is at the root, the test harness is @quire/testing).',
      'packages/core/tsconfig.json extends ../../tooling/tsconfig/base.json: nothing in packages/ or apps/ may import tooling/ (build configuration is at the root, the test harness is @quire/testing).',
      'packages/core/tsup.config.ts imports ../../tooling/build.ts: nothing in packages/ or apps/ may import tooling/ (build configuration is at the root, the test harness is @quire/testing).',
      'packages/core/tsup.config.ts imports ./src/index.ts: build configuration may not depend on the product.',
    ])
  })

  it('refuses tooling by name, a build configuration importing a workspace package, and a root configuration extending one', () => {
    const root = workspace({
      'packages/core': { files: { 'index.ts': "import { check } from '@quire/tooling/scripts'\nexport const x = check\n" } },
      'packages/client': {},
    })
    writeFileSync(
      join(root, 'packages/client/tsup.config.ts'),
      "import { version } from '@quire/core'\nexport default { banner: version }\n",
    )
    writeFileSync(join(root, 'tsconfig.base.json'), '{ "extends": "./packages/core/tsconfig.json" }\n')
    expect(checkBoundaries(root)).toEqual([
      'packages/client/tsup.config.ts imports @quire/core: build configuration may not depend on the product.',
      'packages/core/src/index.ts imports @quire/tooling, which @quire/core does not declare.',
      'packages/core/src/index.ts imports @quire/tooling/scripts: nothing in packages/ or apps/ may import tooling/ (build configuration is at the root, the test harness is @quire/testing).',
      "tsconfig.base.json extends ./packages/core/tsconfig.json: the root's build configuration may depend on nothing in the workspace.",
    ])
  })
})
