import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { promisify } from 'node:util'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { importSpecifiers } from './imports.ts'

/**
 * Every published package checked as npm will hold it: packed by pnpm (so `workspace:` ranges are
 * replaced and `publishConfig` applied, exactly as `pnpm publish` does), then
 *
 * - publint (strict) on the tarball: the package.json fields, and exports pointing at shipped files;
 * - attw (profile `esm-only`: the packages are ES modules only, so CommonJS `require` and the
 *   `node10` resolution are not checked) on the tarball: every entry point's types resolve under
 *   `node16`/`nodenext` ESM and under `bundler`;
 * - every bare import in the shipped `.js` and `.d.ts` files names a declared dependency: an
 *   undeclared one works inside the workspace (everything is linked) and breaks once installed;
 * - what a registry page and an installer need: description, keywords, MIT license with its
 *   LICENSE file, README, repository with the package's directory, engines, `type: module`,
 *   `publishConfig.access: public`, and no `source` condition (the workspace's way to reach
 *   `src/*.ts`, which Node will not run from node_modules).
 *
 * `pnpm check:packages` runs it; tooling/test/packages-outside.test.ts installs the same tarballs.
 */

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
const attwBin = join(root, 'tooling/node_modules/.bin/attw')

export interface Manifest {
  name: string
  version: string
  private?: boolean
  description?: string
  keywords?: string[]
  license?: string
  type?: string
  engines?: Record<string, string>
  repository?: { type?: string; url?: string; directory?: string } | string
  exports?: unknown
  bin?: string | Record<string, string>
  files?: string[]
  publishConfig?: { access?: string; exports?: unknown }
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

/** A workspace package that npm will publish: its directory (relative to the root) and manifest. */
export interface PublishedPackage {
  readonly dir: string
  readonly manifest: Manifest
}

/** The packages of `packages/` that are not private, in directory order. */
export function publishedPackages(workspaceRoot = root): PublishedPackage[] {
  const base = join(workspaceRoot, 'packages')
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && statSync(join(base, entry.name, 'package.json'), { throwIfNoEntry: false }))
    .map((entry) => ({
      dir: `packages/${entry.name}`,
      manifest: JSON.parse(readFileSync(join(base, entry.name, 'package.json'), 'utf8')) as Manifest,
    }))
    .filter((p) => p.manifest.private !== true)
    .sort((a, b) => a.dir.localeCompare(b.dir))
}

/** `pnpm pack` into `destination`; the tarball's path. `pnpm` is the one on PATH (the toolchain's). */
export async function packPackage(dir: string, destination: string, workspaceRoot = root): Promise<string> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination, '--json'], {
    cwd: join(workspaceRoot, dir),
    timeout: 60_000,
  })
  return (JSON.parse(stdout) as { filename: string }).filename
}

/** The tarball unpacked into `destination` (npm's layout: everything under `package/`); that directory. */
export async function unpack(tarball: string, destination: string): Promise<string> {
  mkdirSync(destination, { recursive: true })
  await run('tar', ['-xzf', tarball, '-C', destination], { timeout: 60_000 })
  return join(destination, 'package')
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
}

/** The package a module specifier names (`@scope/name` or `name`), or null for relative paths and built-ins. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null
  const parts = specifier.split('/')
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier)
  return builtinModules.includes(name) ? null : name
}

/** The packages imported by a shipped `.js` or `.d.ts` file's text. */
export function importedPackages(text: string): Set<string> {
  const found = new Set<string>()
  for (const specifier of importSpecifiers(text)) {
    const name = packageOf(specifier)
    if (name) found.add(name)
  }
  return found
}

/**
 * Imports of packages the manifest does not declare, in the unpacked package at `dir`: one line
 * per package, naming a file that imports it.
 */
export function undeclaredImports(dir: string, manifest: Manifest): string[] {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ])
  const firstImporter = new Map<string, string>()
  for (const file of filesUnder(dir).filter((f) => /\.(m?js|d\.ts)$/.test(f) && !f.startsWith('src/'))) {
    for (const name of importedPackages(readFileSync(join(dir, file), 'utf8')))
      if (!declared.has(name) && !firstImporter.has(name)) firstImporter.set(name, file)
  }
  return [...firstImporter].map(([name, file]) => `${file} imports ${name}, which is not in dependencies`)
}

function hasCondition(value: unknown, condition: string): boolean {
  if (value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([key, inner]) => key === condition || hasCondition(inner, condition))
}

function withoutSource(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).flatMap(([key, inner]) => (key === 'source' ? [] : [[key, withoutSource(inner)]])))
}

/**
 * `publishConfig.exports` must be the workspace's `exports` without `source`: an entry point added
 * to one and not the other would be missing (or different) once published. A package with a `bin`
 * may publish fewer entry points (the CLI publishes the command only).
 */
function exportsDrift(source: Manifest, packed: Manifest): string[] {
  if (typeof source.exports !== 'object' || source.exports === null || typeof packed.exports !== 'object' || packed.exports === null)
    return []
  const workspace = withoutSource(source.exports) as Record<string, unknown>
  const published = packed.exports as Record<string, unknown>
  const problems: string[] = []
  for (const [key, value] of Object.entries(published))
    if (key in workspace && JSON.stringify(value) !== JSON.stringify(workspace[key]))
      problems.push(`publishConfig.exports["${key}"] differs from exports["${key}"] without "source"`)
  if (packed.bin === undefined)
    for (const key of Object.keys(workspace))
      if (!(key in published)) problems.push(`exports["${key}"] is not published (add it to publishConfig.exports)`)
  return problems
}

/**
 * What a registry page and an installer need, from the packed manifest (`packed`), the source
 * manifest (`source`: `publishConfig` is consumed by packing) and the packed file list.
 */
export function manifestProblems(dir: string, packed: Manifest, source: Manifest, files: readonly string[]): string[] {
  const problems: string[] = []
  const has = (file: string) => files.includes(file)
  if (!packed.description || packed.description.length < 20) problems.push('no description (or one too short to say anything)')
  if (!packed.keywords?.length) problems.push('no keywords')
  if (packed.license !== 'MIT') problems.push(`license is ${packed.license ?? 'missing'}, not MIT`)
  if (!has('LICENSE')) problems.push('no LICENSE file')
  if (!has('README.md')) problems.push('no README.md')
  if (packed.type !== 'module') problems.push('not "type": "module" (the packages are ES modules only)')
  if (!packed.engines?.node) problems.push('no engines.node')
  const repository = packed.repository
  if (typeof repository !== 'object' || !repository.url || repository.type !== 'git' || repository.directory !== dir)
    problems.push(`repository must be { type: "git", url, directory: "${dir}" }`)
  if (source.publishConfig?.access !== 'public')
    problems.push('publishConfig.access is not "public" (a scoped package is private by default)')
  if (hasCondition(packed.exports, 'source')) problems.push('the published exports keep the workspace-only "source" condition')
  if (packed.exports === undefined) problems.push('no exports')
  problems.push(...exportsDrift(source, packed))
  const bins = typeof packed.bin === 'string' ? [packed.bin] : Object.values(packed.bin ?? {})
  for (const bin of bins) if (!has(bin.replace(/^\.\//, ''))) problems.push(`bin ${bin} is not in the package`)
  if (bins.length === 0 && !files.some((f) => f.startsWith('dist/') && f.endsWith('.d.ts')))
    problems.push('no type declarations in dist/ (build with `tsup && tsc -p tsconfig.build.json`)')
  return problems
}

/** publint, strict (warnings count), on the unpacked tarball (every file there is published): its messages, formatted. */
export async function publintProblems(unpacked: string): Promise<string[]> {
  const { messages, pkg } = await publint({ pkgDir: unpacked, pack: false, level: 'suggestion', strict: true })
  return messages.map((message) => `publint: ${formatMessage(message, pkg, { color: false }) ?? message.code}`)
}

/** attw on the tarball, profile `esm-only`, offline (no DefinitelyTyped look-ups); its report when it fails. */
export async function attwProblems(tarball: string, hasEntryPoints: boolean): Promise<string[]> {
  if (!hasEntryPoints) return []
  try {
    await run(attwBin, [tarball, '--profile', 'esm-only', '--no-definitely-typed', '--no-color', '--no-emoji', '--format', 'ascii'], {
      timeout: 120_000,
    })
    return []
  } catch (error) {
    const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string }
    return [`attw: ${(stdout || stderr || message).trim()}`]
  }
}

/** A package's exports with at least one entry point that has types (not only `./package.json`). */
function hasTypedEntryPoints(exports: unknown): boolean {
  return hasCondition(exports, 'types')
}

/** Every check on one published package, packed into `scratch`; its problems (none: ready to publish). */
export async function checkPackage(pkg: PublishedPackage, scratch: string, workspaceRoot = root): Promise<string[]> {
  mkdirSync(scratch, { recursive: true })
  const tarball = await packPackage(pkg.dir, scratch, workspaceRoot)
  const unpacked = await unpack(tarball, join(scratch, pkg.dir.replace('/', '-')))
  const packed = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Manifest
  const files = filesUnder(unpacked)
  const [linted, typed] = await Promise.all([publintProblems(unpacked), attwProblems(tarball, hasTypedEntryPoints(packed.exports))])
  return [...manifestProblems(pkg.dir, packed, pkg.manifest, files), ...undeclaredImports(unpacked, packed), ...linted, ...typed]
}

/** `checkPackage`, a failure to pack or unpack said as one problem instead of a stack trace. */
async function checkOrSay(pkg: PublishedPackage, scratch: string): Promise<string[]> {
  try {
    return await checkPackage(pkg, scratch)
  } catch (error) {
    const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string }
    return [`could not be packed: ${(stderr || stdout || message).trim()}`]
  }
}

async function main(): Promise<void> {
  const packages = publishedPackages()
  const missing = packages.filter((p) => !statSync(join(root, p.dir, 'dist'), { throwIfNoEntry: false }))
  if (missing.length > 0) {
    process.stderr.write(`Not built: ${missing.map((p) => p.manifest.name).join(', ')}. Run \`pnpm build\` first.\n`)
    process.exit(1)
  }
  const scratch = mkdtempSync(join(tmpdir(), 'quire-check-packages-'))
  let failed = 0
  try {
    // Two at a time: two cores, and attw is CPU-bound.
    const results = new Map<string, string[]>()
    const queue = [...packages]
    await Promise.all(
      [0, 1].map(async () => {
        for (let pkg = queue.shift(); pkg; pkg = queue.shift()) results.set(pkg.manifest.name, await checkOrSay(pkg, scratch))
      }),
    )
    for (const pkg of packages) {
      const problems = results.get(pkg.manifest.name) ?? []
      if (problems.length > 0) failed++
      process.stdout.write(
        problems.length === 0
          ? `ok    ${pkg.manifest.name}\n`
          : `FAIL  ${pkg.manifest.name}\n${problems.map((p) => `      - ${p.replaceAll('\n', '\n        ')}`).join('\n')}\n`,
      )
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  if (failed > 0) {
    process.stderr.write(`${failed} of ${packages.length} published packages are not ready to publish.\n`)
    process.exit(1)
  }
  process.stdout.write(`All ${packages.length} published packages pass publint, attw (esm-only) and the manifest checks.\n`)
}

if (import.meta.main) await main()
