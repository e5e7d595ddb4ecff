import { isQuireApiError, type QuireClient } from '@quire/client'
import { CliError } from './cli-error.ts'
import { pathSegments } from './project-reference.ts'

/**
 * How a person names an artifact on the command line: its id (`art_…`), its path
 * `OWNER/PROJECT/SLUG` (as `gh` takes `OWNER/REPO`), or its web URL
 * (`https://quire.example/OWNER/PROJECT/SLUG`, as the artifact's `url` reads). A path or URL is
 * resolved through the by-path operation; an id is used as it is.
 */
export type ArtifactReference = { readonly id: string } | { readonly owner: string; readonly projectSlug: string; readonly slug: string }

const artifactIdPattern = /^art_[0-9a-z]{26}$/

export function parseArtifactReference(text: string): ArtifactReference {
  const value = text.trim()
  if (artifactIdPattern.test(value)) return { id: value }
  const segments = pathSegments(value, 3)
  const [owner, projectSlug, slug] = segments ?? []
  if (segments?.length !== 3 || !owner || !projectSlug || !slug) throw invalid(text)
  return { owner, projectSlug, slug }
}

function invalid(text: string): CliError {
  return new CliError('usage', `"${text}" does not name an artifact.`, {
    hint: "Give OWNER/PROJECT/SLUG (e.g. ada/notes/plan), the artifact's URL, or its id (art_…).",
  })
}

type Artifact = Awaited<ReturnType<QuireClient['ops']['getArtifact']>>

/** The artifact at a path; not found says how else to name it. */
async function byPath(client: QuireClient, reference: Extract<ArtifactReference, { owner: string }>): Promise<Artifact> {
  try {
    return await client.call('resolveArtifactPath', { params: reference })
  } catch (error) {
    if (!isQuireApiError(error, 'not_found')) throw error
    throw new CliError(
      'not_found',
      `No artifact at ${reference.owner}/${reference.projectSlug}/${reference.slug} that this credential can see.`,
      {
        code: 'not_found',
        hint: 'quire artifact list shows the artifacts you can see. A deleted artifact has no path any more: name it by its id (art_…).',
      },
    )
  }
}

/** The artifact's id: an id as it is (no call), a path or URL by one by-path read. */
export async function resolveArtifactId(client: () => Promise<QuireClient>, text: string): Promise<string> {
  const reference = parseArtifactReference(text)
  return 'id' in reference ? reference.id : (await byPath(await client(), reference)).id
}

/** The artifact itself, in one read: by id, or by path. */
export async function resolveArtifact(client: () => Promise<QuireClient>, text: string): Promise<Artifact> {
  const reference = parseArtifactReference(text)
  const quire = await client()
  return 'id' in reference ? quire.call('getArtifact', { params: { artifactId: reference.id } }) : byPath(quire, reference)
}
