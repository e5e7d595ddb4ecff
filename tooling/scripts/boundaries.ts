import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { importSpecifiers } from './imports.ts'

/**
 * The direction of imports (DESIGN "Packages and the direction of imports"): each workspace
 * package may depend on the packages listed, and nothing else in the workspace. Apps may use
 * any package but no app, without exception (both run on `@quire/runtime`); no package may use an app.
 */
export const allowedDependencies: Record<string, readonly string[]> = {
  '@quire/core': [],
  '@quire/authz': ['@quire/core'],
  '@quire/storage': ['@quire/core', '@quire/authz'],
  '@quire/agent-auth': ['@quire/core', '@quire/authz'],
  '@quire/client': ['@quire/core'],
  // The CLI serves the MCP tools over stdio (`quire mcp`), bundled in like the client.
  '@quire/cli': ['@quire/core', '@quire/client', '@quire/mcp'],
  '@quire/mcp': ['@quire/core', '@quire/authz', '@quire/client'],
  // What both apps run on (private), bottom to top: the composition root that wires the stores,
  // the HTTP edge both answer with, and the REST app.
  '@quire/runtime': ['@quire/core', '@quire/authz', '@quire/storage', '@quire/agent-auth'],
  '@quire/http-edge': ['@quire/core', '@quire/storage', '@quire/runtime'],
  '@quire/rest': ['@quire/core', '@quire/runtime', '@quire/http-edge'],
  // The test harness (private), above the product: test databases, fixtures made through the use-cases.
  '@quire/testing': ['@quire/core', '@quire/storage'],
  // The web app as packages (private), bottom to top: the renderer, the pages, how a request is
  // taken, sign-in, and the site that composes them; apps/web only configures and starts it.
  '@quire/render': ['@quire/core'],
  '@quire/pages': ['@quire/core', '@quire/render', '@quire/agent-auth'],
  '@quire/web-http': ['@quire/core', '@quire/runtime', '@quire/http-edge', '@quire/pages'],
  '@quire/sign-in': ['@quire/core', '@quire/runtime', '@quire/agent-auth', '@quire/pages', '@quire/web-http'],
  // The content origin (private): HTML, SVG and Mermaid rendered apart from the web app; apps/web starts both.
  '@quire/content-origin': ['@quire/core', '@quire/runtime', '@quire/render'],
  '@quire/site': [
    '@quire/core',
    '@quire/runtime',
    '@quire/http-edge',
    '@quire/agent-auth',
    '@quire/mcp',
    '@quire/render',
    '@quire/pages',
    '@quire/web-http',
    '@quire/sign-in',
  ],
}

/**
 * The test harness is for tests only: they reach it through the root's devDependencies (like
 * vitest), so no package or app declares it and the package graph keeps no cycle through it.
 */
const testHarness = '@quire/testing'

/** Files allowed to read process.env: the apps' env.ts, the CLI's config, and the test harness's env.ts (the run's settings). */
const envReaders = [/^apps\/[^/]+\/src\/env\.ts$/, /^packages\/cli\/src\/config\.ts$/, /^packages\/testing\/src\/env\.ts$/]

/** The build configuration at the root, which every package's extends: it may depend on nothing in the workspace. */
const rootBuildConfiguration = ['tsconfig.base.json', 'tsconfig.build.json', 'biome.json']

/** The folders of the workspace that hold code: the product, the repository's scripts and the benchmarks. */
const workspaceFolders = ['packages', 'apps', 'tooling', 'bench']

interface Manifest {
  name: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

interface Unit {
  readonly dir: string
  readonly manifest: Manifest
  readonly kind: 'package' | 'app'
}

const skippedFolders = new Set(['node_modules', 'dist', '.turbo', 'coverage'])
const codeFile = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/

function filesUnder(dir: string): string[] {
  let out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!skippedFolders.has(entry.name)) out = out.concat(filesUnder(path))
    } else out.push(path)
  }
  return out
}

function sourceFiles(dir: string): string[] {
  return filesUnder(dir).filter((file) => /\.(ts|tsx|mts)$/.test(file) && !/\.test\.ts$/.test(file))
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}${sep}`)
}

/** The root-relative path with forward slashes, as the messages say it. */
function rel(root: string, path: string): string {
  return relative(root, path).split(sep).join('/')
}

/** The `extends` of a tsconfig or biome configuration, as the specifiers it names. */
function extendsOf(text: string): string[] {
  const match = /"extends"\s*:\s*(\[[^\]]*\]|"[^"]*")/.exec(text)
  if (!match?.[1]) return []
  const value = JSON.parse(match[1]) as string | string[]
  return Array.isArray(value) ? value : [value]
}

function workspaceUnits(root: string): Unit[] {
  const units: Unit[] = []
  for (const [group, kind] of [
    ['packages', 'package'],
    ['apps', 'app'],
  ] as const) {
    const base = join(root, group)
    if (!statSync(base, { throwIfNoEntry: false })?.isDirectory()) continue
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      const file = join(base, entry.name, 'package.json')
      if (!entry.isDirectory() || !statSync(file, { throwIfNoEntry: false })) continue
      units.push({ dir: join(base, entry.name), manifest: JSON.parse(readFileSync(file, 'utf8')) as Manifest, kind })
    }
  }
  return units
}

/** A relative import's target among `files`, with the `.ts` the sources name (or the `.js`, or no extension, it stands for). */
function resolveImport(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const path = resolve(dirname(from), specifier)
  return [path, path.replace(/\.js$/, '.ts'), `${path}.ts`, join(path, 'index.ts')].find((candidate) => files.has(candidate))
}

/** Each file's relative imports among `files` (type-only and dynamic imports included). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const set = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const targets = importSpecifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveImport(file, specifier, set))
      .filter((target): target is string => target !== undefined)
    graph.set(file, [...new Set(targets)].sort())
  }
  return graph
}

/**
 * Every elementary cycle of `graph` (up to `limit`), each once, starting at its first file in sort
 * order: from each file, a walk through later files only, and only through those that lead back to it.
 */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>, limit = 100): string[][] {
  const order = [...graph.keys()].sort()
  const rank = new Map(order.map((file, index) => [file, index]))
  const importers = new Map<string, string[]>(order.map((file) => [file, []]))
  for (const [file, targets] of graph) for (const target of targets) importers.get(target)?.push(file)
  const cycles: string[][] = []
  for (const [index, start] of order.entries()) {
    // The later files from which `start` can be reached through later files.
    const leadsBack = new Set([start])
    const pending = [start]
    for (let file = pending.pop(); file !== undefined; file = pending.pop())
      for (const importer of importers.get(file) ?? [])
        if ((rank.get(importer) ?? -1) > index && !leadsBack.has(importer)) {
          leadsBack.add(importer)
          pending.push(importer)
        }
    const path = [start]
    const walk = (file: string): void => {
      for (const next of graph.get(file) ?? []) {
        if (cycles.length >= limit) return
        if (next === start) cycles.push([...path])
        else if (leadsBack.has(next) && !path.includes(next)) {
          path.push(next)
          walk(next)
          path.pop()
        }
      }
    }
    walk(start)
  }
  return cycles
}

function cycleSentence(base: string, files: readonly string[]): string {
  const names = files.map((file) => file.slice(base.length + 1))
  const [first, ...rest] = names
  return `Import cycle in ${base}: ${first} imports ${[...rest, first].join(', which imports ')}.`
}

/**
 * Imports that point up from a package or app: any file under it (sources, tests, build
 * configuration) importing `tooling/` by a relative path or by name, or a tsconfig extending a file there.
 */
function upwardImports(root: string, unit: Unit): string[] {
  const tooling = join(root, 'tooling')
  const problems: string[] = []
  for (const file of filesUnder(unit.dir)) {
    const isTsconfig = /(^|[/\\])tsconfig[^/\\]*\.json$/.test(file)
    if (!isTsconfig && !codeFile.test(file)) continue
    const text = readFileSync(file, 'utf8')
    const [verb, specifiers] = isTsconfig ? ['extends', extendsOf(text)] : ['imports', importSpecifiers(text)]
    for (const specifier of specifiers) {
      const upward = specifier.startsWith('.')
        ? inside(resolve(dirname(file), specifier), tooling)
        : /^@quire\/tooling(\/|$)/.test(specifier)
      if (upward)
        problems.push(
          `${rel(root, file)} ${verb} ${specifier}: nothing in packages/ or apps/ may import tooling/ (build configuration is at the root, the test harness is @quire/testing).`,
        )
    }
  }
  return problems
}

/**
 * Build configuration that depends on the product: a package's tsup configuration importing a
 * workspace package or a file of the workspace outside its own folder (or inside its `src/`), or
 * its tsconfig extending one. A package builds from its own folder with the root's options.
 */
function productInBuildConfiguration(root: string, unit: Unit): string[] {
  const problems: string[] = []
  const files = readdirSync(unit.dir).filter((name) => name === 'tsup.config.ts' || /^tsconfig[^/]*\.json$/.test(name))
  for (const name of files) {
    const file = join(unit.dir, name)
    const text = readFileSync(file, 'utf8')
    const specifiers = name.endsWith('.json') ? extendsOf(text) : importSpecifiers(text)
    for (const specifier of specifiers) {
      const target = specifier.startsWith('.') ? resolve(unit.dir, specifier) : null
      const product = target
        ? inside(target, join(unit.dir, 'src')) ||
          (!inside(target, unit.dir) && workspaceFolders.some((folder) => folder !== 'tooling' && inside(target, join(root, folder))))
        : /^@quire\//.test(specifier)
      if (product)
        problems.push(
          `${rel(root, file)} ${name.endsWith('.json') ? 'extends' : 'imports'} ${specifier}: build configuration may not depend on the product.`,
        )
    }
  }
  return problems
}

/** The root's build configuration extending anything in the workspace's code folders. */
function rootConfigurationProblems(root: string): string[] {
  const problems: string[] = []
  for (const name of rootBuildConfiguration) {
    const file = join(root, name)
    if (!existsSync(file)) continue
    for (const specifier of extendsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(root, specifier)
      if (specifier.startsWith('@quire/') || workspaceFolders.some((folder) => inside(target, join(root, folder))))
        problems.push(`${name} extends ${specifier}: the root's build configuration may depend on nothing in the workspace.`)
    }
  }
  return problems
}

/** Every violation of the boundaries in the workspace at `root`, as readable sentences. */
export function checkBoundaries(root: string): string[] {
  const problems: string[] = []
  const units = workspaceUnits(root)
  const apps = new Set(units.filter((u) => u.kind === 'app').map((u) => u.manifest.name))
  const workspace = new Set(units.map((u) => u.manifest.name))

  for (const unit of units) {
    const { dir, manifest, kind } = unit
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ])
    for (const dep of declared) {
      if (!workspace.has(dep)) continue
      if (apps.has(dep)) {
        problems.push(`${manifest.name} depends on the app ${dep}: nothing may depend on an app.`)
      } else if (dep === testHarness) {
        problems.push(`${manifest.name} depends on the test harness ${dep}: only tests use it (through the root's devDependencies).`)
      } else if (kind === 'package') {
        const allowedDeps = allowedDependencies[manifest.name]
        if (!allowedDeps)
          problems.push(`${manifest.name} is not in the dependency table (tooling/scripts/boundaries.ts): add its allowed dependencies.`)
        else if (!allowedDeps.includes(dep))
          problems.push(`${manifest.name} may not depend on ${dep} (allowed: ${allowedDeps.join(', ') || 'none'}).`)
      }
    }
    const src = join(dir, 'src')
    if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) {
      const files = sourceFiles(src)
      for (const file of files) {
        const path = rel(root, file)
        const text = readFileSync(file, 'utf8')
        for (const specifier of importSpecifiers(text)) {
          const target = /^(@quire\/[a-z-]+)(?:\/|$)/.exec(specifier)?.[1]
          if (target && target !== manifest.name && !declared.has(target))
            problems.push(`${path} imports ${target}, which ${manifest.name} does not declare.`)
        }
        if (/^export \* from/m.test(text)) problems.push(`${path} uses \`export *\`: name the exports.`)
        if (/\bprocess\.env\b/.test(text) && !envReaders.some((re) => re.test(path))) {
          problems.push(`${path} reads process.env: only apps' env.ts and the CLI's config may; pass configuration in as arguments.`)
        }
      }
      for (const cycle of cyclesOf(importGraph(files))) {
        problems.push(
          cycleSentence(
            rel(root, src),
            cycle.map((file) => rel(root, file)),
          ),
        )
      }
    }
    problems.push(...upwardImports(root, unit), ...productInBuildConfiguration(root, unit))
  }
  problems.push(...rootConfigurationProblems(root))
  return problems
}
