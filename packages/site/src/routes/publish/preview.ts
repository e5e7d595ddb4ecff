import { type NewArtifactValues, previewSection } from '@quire/pages'
import type { SafeHtml } from '@quire/render'
import { renderDocument } from '../document-pages.ts'

/**
 * The document as its page will show it, from the form's values, once the create's dry run said
 * it would be published: rendered uncached (nothing is saved to key a cache by), with no diff (a
 * new artifact has no version to differ from).
 */
export function artifactPreview(values: NewArtifactValues): SafeHtml {
  const type = values.type as Parameters<typeof renderDocument>[0]
  return previewSection({ title: values.title || 'Untitled', type, rendered: renderDocument(type, values.content).body })
}
