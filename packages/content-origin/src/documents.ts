import type { PreviewDocument } from '@quire/core'
import { escapeHtml, mermaidDiagrams } from '@quire/render'
import { LRUCache } from 'lru-cache'
import type { ContentAssets } from './assets.ts'

/** What the content origin answers for a capability: the bytes, their type and the policy they run under. */
export interface ServedDocument {
  readonly type: string
  readonly body: string
  readonly policy: string
  /** Who may load it: `same-origin` for a document (only ever navigated to), `cross-origin` for an image the web app shows. */
  readonly resourcePolicy: 'same-origin' | 'cross-origin'
}

/**
 * The policies of what the content origin serves. Every one: nothing from elsewhere (`default-src
 * 'none'`), no network (`connect-src 'none'`), no form, framed only by the web app, and sandboxed
 * even when opened on its own (`sandbox`: an opaque origin, no top navigation, no popups), so a
 * document that runs script can reach nothing but itself.
 */
export function contentPolicies(options: { contentUrl: string; webUrl: string }) {
  const assets = `${options.contentUrl}/assets/`
  const common = ["default-src 'none'", "connect-src 'none'", "form-action 'none'", `frame-ancestors ${options.webUrl}`, "base-uri 'none'"]
  return {
    /** An HTML artifact: its own inline script and styles and data: images run; nothing is fetched but our assets. */
    html: [
      'sandbox allow-scripts',
      ...common,
      `script-src 'unsafe-inline' ${assets}`,
      "style-src 'unsafe-inline' data:",
      'img-src data: blob:',
      'font-src data:',
      'media-src data: blob:',
    ].join('; '),
    /** A Mermaid diagram: our scripts only; Mermaid writes styles into the SVG it draws. */
    diagram: [
      'sandbox allow-scripts',
      ...common,
      `script-src ${assets}`,
      `style-src 'unsafe-inline' ${assets}`,
      'img-src data:',
      'font-src data:',
    ].join('; '),
    /** An SVG: shown as an image, where no script runs; opened on its own, none runs either. */
    svg: ['sandbox', ...common, "style-src 'unsafe-inline'", 'img-src data:', 'font-src data:'].join('; '),
  }
}

/** Puts our frame-height script at the start of an HTML document: after its doctype, so the mode the document asked for holds. */
function withFrameScript(content: string, script: string): string {
  const doctype = /^\uFEFF?\s*<!doctype[^>]*>/i.exec(content)
  if (doctype === null) return `${script}\n${content}`
  return `${doctype[0]}${script}${content.slice(doctype[0].length)}`
}

/**
 * Builds the documents of capabilities. A Markdown version's diagram sources are kept by content
 * hash (a document with several diagrams is parsed once for all its frames).
 */
export function contentDocuments(options: { contentUrl: string; webUrl: string; assets: ContentAssets }) {
  const { assets, webUrl } = options
  const policies = contentPolicies(options)
  const frameScript = `<script src="${assets.frame.path}" data-parent="${escapeHtml(webUrl)}"></script>`
  const diagramsOf = new LRUCache<string, string[]>({ max: 256 })

  const diagramPage = (source: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Diagram</title>
<link rel="stylesheet" href="${assets.diagramStyle.path}">
${frameScript}
<script src="${assets.mermaid.path}" defer></script>
<script src="${assets.diagramScript.path}" defer></script>
</head>
<body>
<div id="diagram" class="diagram"></div>
<pre id="diagram-source" class="diagram-source">${escapeHtml(source)}</pre>
</body>
</html>
`

  /** The document a capability names, or null when it names a diagram the version does not have. */
  return (doc: PreviewDocument): ServedDocument | null => {
    if (doc.diagram !== undefined) {
      let sources = diagramsOf.get(doc.sha256)
      if (sources === undefined) {
        sources = mermaidDiagrams(doc.content)
        diagramsOf.set(doc.sha256, sources)
      }
      const source = sources[doc.diagram]
      if (source === undefined) return null
      return { type: 'text/html; charset=utf-8', body: diagramPage(source), policy: policies.diagram, resourcePolicy: 'same-origin' }
    }
    switch (doc.type) {
      case 'html':
        return {
          type: 'text/html; charset=utf-8',
          body: withFrameScript(doc.content, frameScript),
          policy: policies.html,
          resourcePolicy: 'same-origin',
        }
      case 'mermaid':
        return { type: 'text/html; charset=utf-8', body: diagramPage(doc.content), policy: policies.diagram, resourcePolicy: 'same-origin' }
      case 'svg':
        return { type: 'image/svg+xml; charset=utf-8', body: doc.content, policy: policies.svg, resourcePolicy: 'cross-origin' }
      default:
        return null
    }
  }
}
