import { artifactTypeOf, type Failure, isArtifactType, slugify, slugOfFileName, titleOfFile } from '@quire/core'
import type { AccessForm, NewArtifactValues } from '@quire/pages'
import { field, single } from '../account/request-values.ts'
import type { Upload } from './upload.ts'

/** What the new-artifact form asks for: check the slug, preview the dry run, or publish. */
export type Intent = 'check' | 'preview' | 'publish'

/** The form as posted, with an uploaded file's text in place of the content box's. */
export interface PostedArtifact {
  readonly values: NewArtifactValues
  readonly intent: Intent
  /** The file whose text is now the content, when one was sent and read. */
  readonly uploaded: string | null
  /** What is wrong with the file or the type before anything runs, by field. */
  readonly errors: Readonly<Record<string, string>>
}

/** The allowlist as typed: one address a line, blank lines left out. */
export function emailLines(text: string): string[] {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

/** A textarea's line breaks as the browser sends them (CRLF) made LF, as a pasted document would have them. */
function lf(text: string): string {
  return text.replace(/\r\n?/g, '\n')
}

/** Words for a refused file. */
function uploadProblem(upload: Upload, limit: number): string {
  if (upload.problem === 'too_large')
    return `${upload.fileName} is larger than ${limit.toLocaleString('en')} bytes, the most one version may hold. Nothing was published; choose a smaller file or paste part of it.`
  return `${upload.fileName} is not UTF-8 text (it looks like a binary file). Quire keeps text documents: Markdown, plain text, HTML, JSON, YAML, CSV, Mermaid or SVG.`
}

/**
 * Reads the posted form: the file's text replaces the box's, and what is left empty is made the
 * way `quire push` makes it (core's file rules): the type from the file's extension (Markdown for
 * typed text), the title from a Markdown file's first heading or its name, the slug from the
 * file's name or the title.
 */
export function postedArtifact(body: unknown, upload: Upload | null, contentBytes: number): PostedArtifact {
  const errors: Record<string, string> = {}
  const chosen = single(body, 'useSlug')
  const typed = field(body, 'intent')
  const intent: Intent = chosen || typed === 'check' ? 'check' : typed === 'preview' ? 'preview' : 'publish'
  let content = lf(field(body, 'content'))
  let type = field(body, 'type')
  let title = field(body, 'title')
  let slug = (chosen ?? field(body, 'slug')).trim()
  let uploaded: string | null = null
  if (upload?.problem) errors.file = uploadProblem(upload, contentBytes)
  else if (upload && upload.text !== null) {
    content = upload.text
    uploaded = upload.fileName
    const inferred = artifactTypeOf(upload.fileName)
    if (type === '' && inferred === null) errors.type = `Quire cannot tell the type of ${upload.fileName} from its extension: choose one.`
    if (type === '' && inferred) type = inferred
    if (title.trim() === '' && isArtifactType(type)) title = titleOfFile(upload.fileName, type, content)
    if (slug === '') slug = slugOfFileName(upload.fileName)
  }
  if (type === '' && errors.type === undefined) type = 'md'
  if (slug === '') slug = slugify(title)
  const access: AccessForm = {
    publicView: field(body, 'publicView') === 'on',
    publicEdit: field(body, 'publicEdit') === 'on',
    viewerEmails: field(body, 'viewerEmails'),
  }
  const values = {
    project: field(body, 'project'),
    title,
    slug,
    type,
    description: field(body, 'description'),
    content,
    changelog: field(body, 'changelog'),
    access,
  }
  return { values, intent, uploaded, errors }
}

/** Whether the form asks for access other than the default (private, no viewers). */
export function setsAccess(access: AccessForm): boolean {
  return access.publicView || access.publicEdit || emailLines(access.viewerEmails).length > 0
}

/** The field a refusal of `createArtifact` is about, when it concerns one the person can fix. */
export function fieldOfFailure(failure: Failure, values: NewArtifactValues, uploaded: string | null): string | null {
  switch (failure.code) {
    case 'slug_taken':
      return 'slug'
    case 'payload_too_large':
      return uploaded ? 'file' : 'content'
    case 'not_found':
      return 'project'
    case 'forbidden':
    case 'insufficient_scope':
      return setsAccess(values.access) ? 'access' : 'project'
    default:
      return null
  }
}
