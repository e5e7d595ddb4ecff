import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { brotliCompress, constants } from 'node:zlib'

/** A static file the content origin serves, under a name that changes with its bytes (so browsers keep it for good). */
export interface Asset {
  /** `/assets/<name>.<hash>.<ext>` */
  readonly path: string
  readonly type: string
  readonly body: Buffer
  /** Brotli, made on first request and kept. */
  brotli(): Promise<Buffer>
}

const compress = promisify(brotliCompress)

function asset(name: string, extension: 'js' | 'css', body: Buffer): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  let compressed: Promise<Buffer> | null = null
  return {
    path: `/assets/${name}.${hash}.${extension}`,
    type: extension === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
    body,
    brotli: () => {
      // Quality 5: Mermaid's 5 MiB to a fifth in a fraction of a second, once per process.
      compressed ??= compress(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      return compressed
    },
  }
}

const own = (file: string) => readFileSync(new URL(`../assets/${file}`, import.meta.url))

/** The scripts and the stylesheet the rendered documents load: ours, and Mermaid's bundle from npm. */
export function contentAssets() {
  const require = createRequire(import.meta.url)
  const mermaid = readFileSync(require.resolve('mermaid/dist/mermaid.min.js'))
  const assets = {
    frame: asset('frame', 'js', own('frame.js')),
    diagramScript: asset('diagram', 'js', own('diagram.js')),
    diagramStyle: asset('diagram', 'css', own('diagram.css')),
    mermaid: asset('mermaid', 'js', mermaid),
  }
  /** What the documents' ETags name: a new release of any asset is a new document. */
  const version = createHash('sha256')
    .update(
      Object.values(assets)
        .map((a) => a.path)
        .join('\n'),
    )
    .digest('base64url')
    .slice(0, 10)
  return { ...assets, version, byPath: new Map(Object.values(assets).map((a) => [a.path, a])) }
}

export type ContentAssets = ReturnType<typeof contentAssets>
