/**
 * `@quire/content-origin`: the origin HTML, SVG and Mermaid artifacts are rendered on
 * (`buildContentApp`), apart from the web app, so that a document's script can reach nothing of it.
 */
export { buildContentApp, type ContentAppOptions } from './app.ts'
export { contentPolicies } from './documents.ts'
