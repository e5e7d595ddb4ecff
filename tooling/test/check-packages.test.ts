/**
 * tooling/scripts/check-packages.ts, the publish gate (`pnpm check` runs it on this repository's
 * packages): it passes a well-formed package and names each fault of a broken one.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, describe, expect, it } from 'vitest'
import { checkPackage, importedPackages } from '../scripts/check-packages.ts'

const root = resolve(import.meta.dirname, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'quire-check-packages-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A check runs three commands (pnpm pack, tar, attw), each within a wait's budget (packages/testing/src/waits.ts). */
const checkTimeout = timeoutFor(3)

const goodManifest = {
  name: 'fixture-good',
  version: '1.0.0',
  description: 'A fixture package that is ready to publish.',
  keywords: ['fixture'],
  repository: { type: 'git', url: 'git+https://example.com/fixture.git', directory: 'packages/good' },
  license: 'MIT',
  type: 'module',
  engines: { node: '>=22' },
  sideEffects: false,
  exports: { '.': { source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' } },
  files: ['dist'],
  publishConfig: { access: 'public', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } },
  dependencies: { typebox: '1.4.3' },
}

/** A package directory at `<scratch>/<dir>` with `manifest` and `files` (path → text). */
function fixture(dir: string, manifest: object, files: Record<string, string>): string {
  const at = join(scratch, dir)
  mkdirSync(join(at, 'dist'), { recursive: true })
  writeFileSync(join(at, 'package.json'), JSON.stringify(manifest, null, 2))
  for (const [file, text] of Object.entries(files)) writeFileSync(join(at, file), text)
  return at
}

describe('the published-package check', () => {
  it('finds the imported packages of statements, not of doc comments', () => {
    const text = [
      "import { a } from 'typebox'",
      "export { b } from '@scope/pkg/sub'",
      "import 'side-effect'",
      "const c = await import('lazy')",
      "import { d } from './local.js'",
      "import { e } from 'node:fs'",
      "import { f } from 'path'",
      ' * import { createClient } from "@quire/client"',
      "export type G = import('type-only').G",
    ].join('\n')
    expect([...importedPackages(text)].sort()).toEqual(['@scope/pkg', 'lazy', 'side-effect', 'type-only', 'typebox'])
  })

  it('passes a package that is ready to publish (publint, attw, manifest, imports)', { timeout: checkTimeout }, async () => {
    fixture('packages/good', goodManifest, {
      'dist/index.js': "import { Type } from 'typebox'\nexport const schema = Type.String()\n",
      'dist/index.d.ts': 'export declare const schema: { type: "string" };\n',
      'README.md': '# fixture-good\n',
    })
    copyFileSync(join(root, 'packages/core/LICENSE'), join(scratch, 'packages/good/LICENSE'))
    expect(await checkPackage({ dir: 'packages/good', manifest: goodManifest }, join(scratch, 'out-good'), scratch)).toEqual([])
  })

  it('refuses published exports that drifted from the workspace exports', { timeout: checkTimeout }, async () => {
    const manifest = {
      ...goodManifest,
      name: 'fixture-drift',
      repository: { ...goodManifest.repository, directory: 'packages/drift' },
      exports: {
        ...goodManifest.exports,
        './extra': { source: './src/extra.ts', types: './dist/index.d.ts', import: './dist/index.js' },
      },
      publishConfig: { access: 'public', exports: { '.': { import: './dist/index.js', types: './dist/index.d.ts' } } },
    }
    fixture('packages/drift', manifest, {
      'dist/index.js': 'export const schema = 1\n',
      'dist/index.d.ts': 'export declare const schema: 1;\n',
      'README.md': '# fixture-drift\n',
    })
    copyFileSync(join(root, 'packages/core/LICENSE'), join(scratch, 'packages/drift/LICENSE'))
    const problems = await checkPackage({ dir: 'packages/drift', manifest }, join(scratch, 'out-drift'), scratch)
    expect(problems).toContain('publishConfig.exports["."] differs from exports["."] without "source"')
    expect(problems).toContain('exports["./extra"] is not published (add it to publishConfig.exports)')
  })

  it('names every fault of a broken package', { timeout: checkTimeout }, async () => {
    const manifest = {
      ...goodManifest,
      name: 'fixture-bad',
      description: undefined,
      license: 'ISC',
      repository: undefined,
      // The workspace's exports published as they are (`source` leaks), and an entry point whose types are not shipped.
      exports: {
        '.': { source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
        './extra': { types: './dist/missing.d.ts', import: './dist/extra.js' },
      },
      publishConfig: undefined,
    }
    fixture('packages/bad', manifest, {
      'dist/index.js': "import { Type } from 'typebox'\nimport { x } from 'undeclared-lib'\nexport const schema = Type.String(x)\n",
      'dist/index.d.ts': 'export declare const schema: { type: "string" };\n',
      'dist/extra.js': 'export const extra = 1\n',
    })
    const problems = await checkPackage({ dir: 'packages/bad', manifest: manifest as never }, join(scratch, 'out-bad'), scratch)
    const expected = [
      /^no description/,
      /^license is ISC, not MIT$/,
      /^no LICENSE file$/,
      /^no README\.md$/,
      /^repository must be/,
      /^publishConfig\.access is not "public"/,
      /^the published exports keep the workspace-only "source" condition$/,
      /^dist\/index\.js imports undeclared-lib, which is not in dependencies$/,
      /^publint: /,
      /^attw: /,
    ]
    for (const pattern of expected) expect(problems, String(pattern)).toContainEqual(expect.stringMatching(pattern))
  })
})
