import { type ArtifactType, artifactTypes } from '../contract/schemas/artifact.ts'
import { slugify } from './rules.ts'

/*
 * How a file becomes an artifact, wherever one is published from a file (`quire push`, the web's
 * upload): the type from the extension, the slug from the file name, the title from the first
 * Markdown heading (else the file name). What the person says overrides each.
 */

const typesByExtension: Readonly<Record<string, ArtifactType>> = {
  md: 'md',
  markdown: 'md',
  mdx: 'md',
  txt: 'txt',
  text: 'txt',
  html: 'html',
  htm: 'html',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  csv: 'csv',
  mmd: 'mermaid',
  mermaid: 'mermaid',
  svg: 'svg',
}

/** The extensions a type is published from, with the dot (`.md`, `.markdown`…): what a file picker may offer. */
export const fileExtensions: readonly string[] = Object.keys(typesByExtension).map((extension) => `.${extension}`)

/** The last segment of a path or file name, whichever separator it uses (a browser may send `C:\…\notes.md`). */
export function baseName(fileName: string): string {
  return fileName.split(/[\\/]/).pop() ?? fileName
}

/** `notes.tar.md` → `md`; '' without one (a leading dot does not start an extension). */
function extensionOf(fileName: string): string {
  const name = baseName(fileName)
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
}

/** The artifact type for a file name, or null when the extension says nothing we know. */
export function artifactTypeOf(fileName: string): ArtifactType | null {
  return typesByExtension[extensionOf(fileName)] ?? null
}

/** Whether a text is one of the artifact types. */
export function isArtifactType(text: string): text is ArtifactType {
  return (artifactTypes as readonly string[]).includes(text)
}

/** `My Notes (draft).md` → `my-notes-draft`: the file's name without its extension, as a slug ('' when nothing is left). */
export function slugOfFileName(fileName: string): string {
  const name = baseName(fileName)
  const extension = extensionOf(name)
  return slugify(extension === '' ? name : name.slice(0, -(extension.length + 1)))
}

/** The text of the first ATX heading (`# Title`) outside front matter and code fences, or null. */
export function firstHeading(markdown: string): string | null {
  const lines = markdown.split(/\r?\n/)
  let fence: string | null = null
  let start = 0
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---')
    if (end > 0) start = end + 1
  }
  for (const line of lines.slice(start)) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker) {
      if (fence === null) fence = marker[0] ?? null
      else if (marker[0] === fence) fence = null
      continue
    }
    if (fence !== null) continue
    const heading = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1]?.trim()
    if (heading) return heading
  }
  return null
}

/** The most characters of a title (`Title` in the contract). */
const TITLE_MAX = 200

/** The title of a file: the first heading of a Markdown file, else the file's name; at most 200 characters. */
export function titleOfFile(fileName: string, type: string, content: string): string {
  const title = (type === 'md' ? firstHeading(content) : null) ?? baseName(fileName)
  return title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title
}
