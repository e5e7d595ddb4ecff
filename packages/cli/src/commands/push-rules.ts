import { basename, extname } from 'node:path'

/*
 * How `quire push` turns a file into an artifact (documented in the CLI's README):
 * type from the extension, slug from the file name, title from the first Markdown heading (else
 * the file name). Flags override each.
 */

const typesByExtension: Readonly<Record<string, string>> = {
  '.md': 'md',
  '.markdown': 'md',
  '.mdx': 'md',
  '.txt': 'txt',
  '.text': 'txt',
  '.html': 'html',
  '.htm': 'html',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.csv': 'csv',
  '.mmd': 'mermaid',
  '.mermaid': 'mermaid',
  '.svg': 'svg',
}

/** The artifact type for a file name, or null when the extension says nothing we know. */
export function typeOf(fileName: string): string | null {
  return typesByExtension[extname(fileName).toLowerCase()] ?? null
}

/** `My Notes (draft).md` → `my-notes-draft`: lower-case ASCII letters, digits and single dashes, at most 64. */
export function slugOf(fileName: string): string {
  const stem = basename(fileName, extname(fileName))
  return stem
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '')
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

/** The title: the flag, else the first heading of a Markdown file, else the file's name; at most 200 characters. */
export function titleOf(fileName: string, type: string, content: string, flag?: string): string {
  const title = flag ?? (type === 'md' ? firstHeading(content) : null) ?? basename(fileName)
  return title.length > 200 ? `${title.slice(0, 199)}…` : title
}
