import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js'
import type { ArtifactType, OperationOutput, Operations } from '@quire/core'
import type { Execute } from './execute.ts'

/** The media type each artifact type is served as. */
export const mimeTypes: Record<ArtifactType, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  html: 'text/html',
  json: 'application/json',
  yaml: 'application/yaml',
  csv: 'text/csv',
  mermaid: 'text/vnd.mermaid',
  svg: 'image/svg+xml',
}

/** MCP's "resource not found" (2025-11-25). */
export const RESOURCE_NOT_FOUND = -32002

/** The artifact template: the latest version of an artifact by its web path (`?version=N` pins one). */
export const artifactTemplate: ResourceTemplate = {
  uriTemplate: 'quire://{ownerUsername}/{projectSlug}/{slug}{?version}',
  name: 'artifact',
  title: 'Artifact content',
  description:
    "An artifact's source text by its path (the same as its web URL's: owner, project, slug): the latest version, or `?version=N`. The MIME type follows the artifact's type (`text/markdown` for md).",
}

type Artifact = OperationOutput<Operations['listMyArtifacts']>['items'][number]

export function artifactUri(artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>): string {
  return `quire://${artifact.ownerUsername}/${artifact.projectSlug}/${artifact.slug}`
}

function resourceOf(artifact: Artifact): Resource {
  return {
    uri: artifactUri(artifact),
    name: `${artifact.ownerUsername}/${artifact.projectSlug}/${artifact.slug}`,
    title: artifact.title,
    mimeType: mimeTypes[artifact.type],
    ...(artifact.description ? { description: artifact.description } : {}),
  }
}

/** `resources/list`: the caller's artifacts, a page at a time. */
export async function listResources(execute: Execute, cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const page = await execute({ operation: 'listMyArtifacts', input: { params: {}, query: cursor ? { cursor } : {}, body: undefined } })
  if (!page.ok)
    throw new McpError(page.error.code === 'invalid_cursor' ? ErrorCode.InvalidParams : ErrorCode.InternalError, page.error.message)
  const { items, nextCursor } = page.value as OperationOutput<Operations['listMyArtifacts']>
  return { resources: items.map(resourceOf), ...(nextCursor ? { nextCursor } : {}) }
}

const segment = '([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)'
const uriPattern = new RegExp(`^quire://${segment}/${segment}/${segment}(?:\\?version=([1-9][0-9]{0,9}))?$`)

/** `resources/read`: the artifact's content under the same access rules as the tools; -32002 for anything not found. */
export async function readResource(execute: Execute, uri: string): Promise<ReadResourceResult> {
  const match = uriPattern.exec(uri)
  const notFound = () => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri })
  if (!match) throw notFound()
  const [, owner, projectSlug, slug, version] = match
  const artifact = await execute({
    operation: 'resolveArtifactPath',
    input: { params: { owner, projectSlug, slug }, query: {}, body: undefined },
  })
  if (!artifact.ok) throw artifact.error.code === 'not_found' ? notFound() : new McpError(ErrorCode.InvalidRequest, artifact.error.message)
  const { id, type } = artifact.value as Artifact
  const read = await execute({
    operation: 'getContent',
    input: { params: { artifactId: id }, query: version ? { version: Number(version) } : {}, body: undefined },
  })
  if (!read.ok) throw read.error.code === 'not_found' ? notFound() : new McpError(ErrorCode.InvalidRequest, read.error.message)
  const content = read.value as OperationOutput<Operations['getContent']>
  return { contents: [{ uri, mimeType: mimeTypes[type], text: content.content }] }
}
