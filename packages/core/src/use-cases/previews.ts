import type { ArtifactType } from '../contract/schemas/artifact.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { PreviewTarget } from '../ports/previews.ts'
import type { CoreDeps } from './deps.ts'

/**
 * The types the web app shows rendered from the content origin (in a sandboxed frame or as an
 * image), never on its own: their script would run there. A Markdown version's Mermaid diagrams
 * are drawn there too, one capability each.
 */
export const contentOriginTypes: readonly ArtifactType[] = ['html', 'svg', 'mermaid']

/** Whether a version of this type is rendered on the content origin. */
export function rendersOnContentOrigin(type: ArtifactType): boolean {
  return contentOriginTypes.includes(type)
}

/** The preview fields of an artifact read: where its latest version opens rendered, and until when. */
export interface PreviewFields {
  readonly previewUrl: string | null
  readonly previewExpiresAt: string | null
}

const noPreview: PreviewFields = { previewUrl: null, previewExpiresAt: null }

/**
 * A capability URL for a version the caller may read (the caller has been admitted: this does not
 * ask again), or nulls when its type is not rendered on the content origin or none is configured.
 */
export async function previewFields(
  deps: CoreDeps,
  artifact: { id: string; type: ArtifactType },
  versionNumber: number,
): Promise<PreviewFields> {
  if (!deps.previews || !rendersOnContentOrigin(artifact.type)) return noPreview
  const link = await deps.previews.mint({ artifactId: artifact.id, versionNumber }, deps.clock.now())
  return { previewUrl: link.url, previewExpiresAt: link.expiresAt.toISOString() }
}

/** A version as the content origin renders it. */
export interface PreviewDocument {
  readonly type: ArtifactType
  readonly versionNumber: number
  readonly content: string
  readonly sha256: string
  /** Set when the capability names one Mermaid diagram of a Markdown version. */
  readonly diagram?: number
}

/**
 * Opens a capability: the version it names, when the capability is ours and current and the
 * artifact still exists. The capability is the whole credential (it was minted for a reader);
 * every refusal is the same `not_found`, so a stranger learns nothing from trying.
 */
export async function openPreview(deps: CoreDeps, token: string): Promise<Result<PreviewDocument>> {
  const missing = fail('not_found', 'No such preview: it may have expired, or the link is incomplete.')
  if (!deps.previews) return missing
  const target: PreviewTarget | null = await deps.previews.open(token, deps.clock.now())
  if (target === null) return missing
  const ctx = await deps.artifacts.loadContentForCaller({ credential: null, artifactId: target.artifactId, version: target.versionNumber })
  const { artifact, version } = ctx
  if (artifact === null || version === null) return missing
  const fits = target.diagram === undefined ? rendersOnContentOrigin(artifact.type) : artifact.type === 'md'
  if (!fits) return missing
  return ok({
    type: artifact.type,
    versionNumber: version.number,
    content: version.body,
    sha256: version.sha256,
    ...(target.diagram === undefined ? {} : { diagram: target.diagram }),
  })
}
