/**
 * `@quire/render`: an artifact version's content as markup a page can embed (`renderArtifact`):
 * Markdown with heading anchors, footnotes and task lists, CSV as a table, highlighted source,
 * everything sanitised; and the `html` template every page builds its markup with, which escapes
 * whatever it is given unless it is already `SafeHtml`. The result depends on the type and
 * content alone, so search snippets, comments and previews can render and cache the same way.
 */
export { type ArtifactSource, type RenderedArtifact, renderArtifact } from './artifact.ts'
export { CSV_ROW_LIMIT } from './csv.ts'
export { HIGHLIGHT_BUDGET, MARKDOWN_HIGHLIGHT_BUDGET } from './highlight.ts'
export { escapeHtml, html, SafeHtml } from './html.ts'
export { diagramMarkers, type Heading, mermaidDiagrams } from './markdown.ts'
export { scopeIds } from './scope-ids.ts'
