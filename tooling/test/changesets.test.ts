/**
 * The release set-up (.changeset/): independent versions for the published packages, none for the
 * private ones, every changeset naming published packages with a real bump, and the release plan
 * that follows from the config and the `workspace:^` ranges, computed by changesets itself on a
 * scratch copy of the workspace's manifests.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { finish, spawnTracked } from '@quire/testing/processes'
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, describe, expect, it } from 'vitest'
import { type Manifest, publishedPackages } from '../scripts/check-packages.ts'

/** Runs a command in `cwd` to its end (one wait: packages/testing/src/waits.ts); fails, with its output, unless it succeeds. */
async function run(command: string, args: readonly string[], cwd: string): Promise<void> {
  const done = await finish(spawnTracked(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] }))
  if (done.code !== 0) throw new Error(`${[command, ...args].join(' ')} exited ${done.code}:\n${done.stdout}${done.stderr}`)
}

/** The waits of a release plan: git init, add and commit, then changeset status. */
const releasePlanTimeout = timeoutFor(4)
const root = resolve(import.meta.dirname, '../..')
const published = publishedPackages(root)
const publishedNames = published.map((p) => p.manifest.name)
const scratch = mkdtempSync(join(tmpdir(), 'quire-changesets-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

interface ChangesetConfig {
  fixed: string[][]
  linked: string[][]
  access: string
  updateInternalDependencies: string
  privatePackages: { version: boolean; tag: boolean }
  ignore: string[]
}
const config = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8')) as ChangesetConfig

/** Every workspace manifest (packages and apps), by directory. */
function workspaceManifests(): { dir: string; manifest: Manifest & { devDependencies?: Record<string, string> } }[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => ({
        dir: `${group}/${entry.name}`,
        manifest: JSON.parse(readFileSync(join(root, group, entry.name, 'package.json'), 'utf8')) as Manifest,
      })),
  )
}

/** A changeset file's releases (`"name": bump` lines of its front matter) and summary. */
function parseChangeset(text: string): { releases: [string, string][]; summary: string } | null {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)
  if (!match) return null
  const releases = (match[1] ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const release = /^\s*["']([^"']+)["']\s*:\s*(\S+)\s*$/.exec(line)
      return release ? ([release[1], release[2]] as [string, string]) : (['<unreadable>', line] as [string, string])
    })
  return { releases, summary: (match[2] ?? '').trim() }
}

/**
 * The release plan changesets computes for `changesets` (file name → text) on a scratch copy of
 * this workspace's manifests and config: each package's bump and new version (`none`: unchanged).
 */
async function releasePlan(name: string, changesets: Record<string, string>): Promise<Record<string, string>> {
  const dir = join(scratch, name)
  mkdirSync(join(dir, '.changeset'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true }))
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), readFileSync(join(root, 'pnpm-workspace.yaml')))
  writeFileSync(join(dir, '.changeset/config.json'), readFileSync(join(root, '.changeset/config.json')))
  for (const [file, text] of Object.entries(changesets)) writeFileSync(join(dir, '.changeset', file), text)
  for (const { dir: unit, manifest } of workspaceManifests()) {
    mkdirSync(join(dir, unit), { recursive: true })
    const { name: pkg, version, private: isPrivate, dependencies, devDependencies } = manifest
    writeFileSync(
      join(dir, unit, 'package.json'),
      JSON.stringify({ name: pkg, version, private: isPrivate, dependencies, devDependencies }),
    )
  }
  // changesets reads the base branch from git: a repository of its own, one commit.
  const git = (...args: string[]) => run('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], dir)
  await git('init', '-q', '-b', 'main')
  await git('add', '-A')
  await git('commit', '-q', '-m', 'scratch')
  await run(join(root, 'node_modules/.bin/changeset'), ['status', '--output', 'plan.json'], dir)
  const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as {
    releases: { name: string; type: string; newVersion: string }[]
  }
  return Object.fromEntries(plan.releases.filter((r) => r.type !== 'none').map((r) => [r.name, `${r.type} ${r.newVersion}`]))
}

const versionOf = (name: string) => published.find((p) => p.manifest.name === name)?.manifest.version ?? '?'
const bumped = (version: string, type: 'minor' | 'patch') => {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number]
  return type === 'minor' ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`
}

describe('changesets', () => {
  it('versions the published packages independently and the private ones never', () => {
    expect(config.fixed).toEqual([])
    expect(config.linked).toEqual([])
    expect(config.access).toBe('public')
    expect(config.updateInternalDependencies).toBe('patch')
    expect(config.privatePackages).toEqual({ version: false, tag: false })
    const names = new Set(workspaceManifests().map((u) => u.manifest.name))
    for (const ignored of config.ignore) expect(names, ignored).toContain(ignored)
    for (const internal of ['@quire/runtime', '@quire/http-edge', '@quire/rest']) expect(publishedNames).not.toContain(internal)
  })

  it('has changesets that name only published packages, each with a bump and a summary', () => {
    const files = readdirSync(join(root, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md')
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const changeset = parseChangeset(readFileSync(join(root, '.changeset', file), 'utf8'))
      expect(changeset, `${file}: front matter between --- lines`).not.toBeNull()
      expect(changeset?.releases.length, file).toBeGreaterThan(0)
      for (const [name, bump] of changeset?.releases ?? []) {
        expect(publishedNames, `${file} names ${name}`).toContain(name)
        expect(['major', 'minor', 'patch'], `${file}: ${name} ${bump}`).toContain(bump)
      }
      expect(changeset?.summary.length, `${file}: summary`).toBeGreaterThan(20)
    }
  })

  it('gives every published package caret ranges on the published packages it runs on, and nothing private', () => {
    for (const { manifest } of published) {
      for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
        if (!dep.startsWith('@quire/')) continue
        expect(publishedNames, `${manifest.name} depends on ${dep}`).toContain(dep)
        // `workspace:*` would publish an exact version: a dependent would pin the old release forever.
        expect(`${manifest.name} → ${dep}: ${range}`).toBe(`${manifest.name} → ${dep}: workspace:^`)
      }
    }
  })

  it('releases a minor of the client alone, and a patch of the MCP package when its range is left', {
    timeout: releasePlanTimeout,
  }, async () => {
    const plan = await releasePlan('client-minor', { 'client.md': '---\n"@quire/client": minor\n---\n\nA client change.\n' })
    // Before 1.0, ^0.x.y holds patches only: a minor leaves it, and the MCP package moves with a patch.
    const leavesRange = versionOf('@quire/client').startsWith('0.')
    expect(plan).toEqual({
      '@quire/client': `minor ${bumped(versionOf('@quire/client'), 'minor')}`,
      ...(leavesRange ? { '@quire/mcp': `patch ${bumped(versionOf('@quire/mcp'), 'patch')}` } : {}),
    })
  })

  it('releases a patch of core alone: every dependent range still holds it', { timeout: releasePlanTimeout }, async () => {
    const plan = await releasePlan('core-patch', { 'core.md': '---\n"@quire/core": patch\n---\n\nA core fix.\n' })
    expect(plan).toEqual({ '@quire/core': `patch ${bumped(versionOf('@quire/core'), 'patch')}` })
  })
})
