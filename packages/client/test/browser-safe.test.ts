import { relative, resolve } from 'node:path'
import { runInNewContext } from 'node:vm'
import { build } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'

const packageDir = resolve(import.meta.dirname, '..')
const workspace = resolve(packageDir, '../..')

/** The client's entry and everything it imports, bundled for a browser: Node built-ins cannot be resolved there. */
async function bundleForBrowser() {
  const result = await build({
    entryPoints: [resolve(packageDir, 'src/index.ts')],
    // Input paths in the metafile are relative to this, whatever the working directory.
    absWorkingDir: workspace,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'QuireClient',
    target: 'es2022',
    // Minified: no comments (file paths in them mention `module`), and free globals keep their names.
    minify: true,
    // Workspace packages from their TypeScript sources, as the tests run them.
    conditions: ['source'],
    logLevel: 'silent',
  })
  const output = result.outputFiles[0]
  if (!output) throw new Error('esbuild wrote no bundle')
  return { code: output.text, inputs: Object.keys(result.metafile.inputs) }
}

/** Globals that only Node has; browser code must not touch them. */
const nodeGlobals = ['process', 'Buffer', 'require', 'module', 'exports', '__dirname', '__filename', 'global', 'setImmediate']

/** Only the web platform: what a browser page offers, with none of Node's globals. */
function browserLikeGlobals(fetch: typeof globalThis.fetch) {
  const { URL, URLSearchParams, Headers, Response, AbortController, AbortSignal, TextEncoder, TextDecoder, DOMException } = globalThis
  return { fetch, URL, URLSearchParams, Headers, Response, AbortController, AbortSignal, TextEncoder, TextDecoder, DOMException, console }
}

describe('the entry is browser-safe', () => {
  let bundle: { code: string; inputs: string[] }
  beforeAll(async () => {
    bundle = await bundleForBrowser()
  })

  it('bundles for the browser from the client, the core contract and typebox alone', () => {
    const places = new Set(
      bundle.inputs.map((input) => {
        const path = relative(workspace, resolve(workspace, input))
        if (path.startsWith('packages/client/src/')) return 'client'
        if (path.startsWith('packages/core/src/contract/')) return 'contract'
        if (/node_modules\/(\.pnpm\/typebox@[^/]+\/node_modules\/)?typebox\//.test(input)) return 'typebox'
        return path
      }),
    )
    expect([...places].sort()).toEqual(['client', 'contract', 'typebox'])
    expect(bundle.inputs.filter((input) => input.startsWith('node:'))).toEqual([])
  })

  it('touches none of Node’s globals', () => {
    for (const name of nodeGlobals) {
      // A use of the global: `process.`, `Buffer.from`, `require(`; not a property such as `.exports` or `{ module: … }`.
      const use = new RegExp(`(?<![.\\w$'"])${name}\\s*[.([]`)
      expect(bundle.code, name).not.toMatch(use)
    }
  })

  it('runs with only web-platform globals: builds, sends and reads a call', async () => {
    const sent: string[] = []
    const fetch = (async (url: string, init: RequestInit) => {
      sent.push(`${init.method} ${url} ${String((init.headers as Record<string, string>).authorization)}`)
      return new Response(JSON.stringify({ code: 'not_found', detail: 'No such artifact.' }), {
        status: 404,
        headers: { 'content-type': 'application/problem+json' },
      })
    }) as typeof globalThis.fetch
    const sandbox: Record<string, unknown> = browserLikeGlobals(fetch)
    sandbox.globalThis = sandbox
    runInNewContext(bundle.code, sandbox)
    for (const name of nodeGlobals) expect(runInNewContext(`typeof ${name}`, sandbox), name).toBe('undefined')

    const quire = sandbox.QuireClient as typeof import('../src/index.ts')
    const client = quire.createClient({ baseUrl: 'https://api.quire.test', token: 'qk_secret' })
    const dry = await client.dryRun('getArtifact', { params: { artifactId: 'art_1' } })
    expect(dry.headers.authorization).toBe(`Bearer ${quire.REDACTED}`)
    const error = await client.ops.getArtifact({ params: { artifactId: 'art_1' } }).catch((e: unknown) => e)
    expect(quire.isQuireApiError(error, 'not_found')).toBe(true)
    expect(sent).toEqual(['GET https://api.quire.test/api/artifacts/art_1 Bearer qk_secret'])
  })
})
