import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/**
 * The direction of imports (DESIGN "Packages and the direction of imports"): each workspace
 * package may depend on the packages listed, and nothing else in the workspace. Apps may use
 * any package but no app, without exception (both run on `@quire/server`); no package may use an app.
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
  // The server runtime both apps run on (private): the composition root wires the stores.
  '@quire/server': ['@quire/core', '@quire/authz', '@quire/storage', '@quire/agent-auth'],
  // The web app as packages (private), bottom to top: the renderer, the pages, how a request is
  // taken, sign-in, and the site that composes them; apps/web only configures and starts it.
  '@quire/render': ['@quire/core'],
  '@quire/pages': ['@quire/core', '@quire/render', '@quire/agent-auth'],
  '@quire/web-http': ['@quire/core', '@quire/server', '@quire/pages'],
  '@quire/sign-in': ['@quire/core', '@quire/server', '@quire/agent-auth', '@quire/pages', '@quire/web-http'],
  '@quire/site': [
    '@quire/core',
    '@quire/server',
    '@quire/agent-auth',
    '@quire/mcp',
    '@quire/render',
    '@quire/pages',
    '@quire/web-http',
    '@quire/sign-in',
  ],
}

/** Files allowed to read process.env: the apps' env.ts and the CLI's config. */
const envReaders = [/^apps\/[^/]+\/src\/env\.ts$/, /^packages\/cli\/src\/config\.ts$/]

interface Manifest {
  name: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

function sourceFiles(dir: string): string[] {
  let out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out = out.concat(sourceFiles(path))
    else if (/\.(ts|tsx|mts)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) out.push(path)
  }
  return out
}

/** Every violation of the boundaries in the workspace at `root`, as readable sentences. */
export function checkBoundaries(root: string): string[] {
  const problems: string[] = []
  const units: { dir: string; manifest: Manifest; kind: 'package' | 'app' }[] = []
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
  const apps = new Set(units.filter((u) => u.kind === 'app').map((u) => u.manifest.name))
  const workspace = new Set(units.map((u) => u.manifest.name))

  for (const { dir, manifest, kind } of units) {
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ])
    for (const dep of declared) {
      if (!workspace.has(dep)) continue
      if (apps.has(dep)) {
        problems.push(`${manifest.name} depends on the app ${dep}: nothing may depend on an app.`)
      } else if (kind === 'package') {
        const allowed = allowedDependencies[manifest.name]
        if (!allowed)
          problems.push(`${manifest.name} is not in the dependency table (tooling/scripts/boundaries.ts): add its allowed dependencies.`)
        else if (!allowed.includes(dep))
          problems.push(`${manifest.name} may not depend on ${dep} (allowed: ${allowed.join(', ') || 'none'}).`)
      }
    }
    const src = join(dir, 'src')
    if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue
    for (const file of sourceFiles(src)) {
      const rel = relative(root, file)
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/\bfrom\s+['"](@quire\/[a-z-]+)(?:\/[^'"]*)?['"]/g)) {
        const target = m[1] as string
        if (target !== manifest.name && !declared.has(target))
          problems.push(`${rel} imports ${target}, which ${manifest.name} does not declare.`)
      }
      if (/^export \* from/m.test(text)) problems.push(`${rel} uses \`export *\`: name the exports.`)
      if (/\bprocess\.env\b/.test(text) && !envReaders.some((re) => re.test(rel))) {
        problems.push(`${rel} reads process.env: only apps' env.ts and the CLI's config may; pass configuration in as arguments.`)
      }
    }
  }
  return problems
}
