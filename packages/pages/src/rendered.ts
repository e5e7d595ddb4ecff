import { createHash } from 'node:crypto'
import { html, type SafeHtml } from '@quire/render'

/*
 * HTML, SVG and Mermaid as their authors meant them: drawn on the content origin (CONTENT_URL),
 * never on this one, in a frame sandboxed to scripts alone (no same origin, no popups, no forms,
 * no top navigation) or as an image, where no script runs. The page keeps running no script of
 * a document's; its one script is ours, below, and only fits frames to their documents.
 */

/**
 * Fits each frame of a rendered document to the height its document reports. A message counts
 * only from one of this page's frames (its window, and the opaque origin a sandboxed frame has),
 * and the height is bounded; without script the frame keeps its height from the stylesheet and
 * scrolls.
 */
export const framesScript = `'use strict'
addEventListener('message', (event) => {
  if (event.origin !== 'null') return
  const data = event.data
  if (data === null || typeof data !== 'object' || data.type !== 'quire:frame-height') return
  if (typeof data.height !== 'number' || !Number.isFinite(data.height)) return
  for (const frame of document.querySelectorAll('iframe.rendered-frame')) {
    if (frame.contentWindow !== event.source) continue
    frame.style.height = Math.min(Math.max(Math.ceil(data.height), 64), 12000) + 'px'
  }
})
`

/** Its file name, which changes with its content (served as `webRoutes.framesScript`). */
export const framesScriptFile = `frames.${createHash('sha256').update(framesScript).digest('hex').slice(0, 12)}.js`

/** Which tab of a rendered type the page shows: the document drawn, or its highlighted source. */
export type DocumentView = 'rendered' | 'source'

/** An HTML, SVG or Mermaid version on its page, drawn from the content origin: which tab is shown. */
export interface RenderedDisplay {
  readonly view: DocumentView
}

/** The tabs above a drawn type's document; plain links, so they work without script. */
export function viewTabs(shown: DocumentView, hrefOf: (view: DocumentView) => string): SafeHtml {
  const tab = (view: DocumentView, label: string) =>
    shown === view ? html`<a href="${hrefOf(view)}" aria-current="page">${label}</a>` : html`<a href="${hrefOf(view)}">${label}</a>`
  return html`<nav class="view-tabs" aria-label="How to show the document">${tab('rendered', 'Rendered')}${tab('source', 'Source')}</nav>`
}

/** The frame a document runs in: scripts only, on the content origin; it sends no Referer there. */
export function renderedFrame(url: string, title: string, kind: 'html' | 'diagram'): SafeHtml {
  return html`<iframe class="rendered-frame rendered-${kind}" src="${url}" title="${title}" sandbox="allow-scripts" referrerpolicy="no-referrer" loading="lazy"></iframe>`
}

/** The drawn version of an HTML, SVG or Mermaid artifact, for the page's document frame. */
export function renderedBody(type: 'html' | 'svg' | 'mermaid', url: string, title: string): SafeHtml {
  if (type === 'svg') return html`<img class="rendered-image" src="${url}" alt="${title}" referrerpolicy="no-referrer">`
  return renderedFrame(url, type === 'html' ? `${title} (rendered)` : `${title} (diagram)`, type === 'html' ? 'html' : 'diagram')
}

/** A Markdown document's Mermaid diagram: drawn in its frame, with its source folded beneath. */
export function diagramFigure(url: string, index: number, source: SafeHtml): SafeHtml {
  return html`<figure class="diagram">
${renderedFrame(url, `Diagram ${index + 1}`, 'diagram')}
<details class="diagram-source"><summary>Diagram source</summary>${source}</details>
</figure>`
}

/** The styles of rendered documents: a frame fitted to its document, tabs above it. */
export const renderedStyles = `
.view-tabs { display: flex; gap: 4px; margin: 0 0 10px; border-bottom: 1px solid var(--line); }
.view-tabs a { padding: 6px 14px; border: 1px solid transparent; border-bottom: 0; border-radius: 8px 8px 0 0; color: var(--muted); text-decoration: none; margin-bottom: -1px; }
.view-tabs a[aria-current="page"] { border-color: var(--line); background: var(--surface); color: var(--text); font-weight: 600; }
.view-tabs a:hover { color: var(--text); }
.rendered-frame { display: block; width: 100%; border: 0; background: #fff; border-radius: 6px; }
.rendered-html { height: 70vh; }
.rendered-diagram { height: 360px; }
.rendered-image { display: block; max-width: 100%; height: auto; margin: 0 auto; background: #fff; border-radius: 6px; }
.document-rendered { padding: 12px; }
.diagram { margin: 0 0 1em; }
.diagram .rendered-frame { border: 1px solid var(--line); }
.diagram-source summary { cursor: pointer; color: var(--muted); font-size: 14px; margin: 6px 0; }
`
