/**
 * Core's file rules, shared by `quire push` and the web's upload: the type from the extension,
 * the slug from the file's name, the title from a Markdown file's first heading.
 */
import { describe, expect, it } from 'vitest'
import { artifactTypeOf, baseName, fileExtensions, firstHeading, isArtifactType, slugOfFileName, titleOfFile } from '../src/index.ts'

describe('file rules', () => {
  it('tells the type from the extension, whatever its case, and nothing from an unknown or missing one', () => {
    expect(artifactTypeOf('notes.md')).toBe('md')
    expect(artifactTypeOf('NOTES.MARKDOWN')).toBe('md')
    expect(artifactTypeOf('flow.mmd')).toBe('mermaid')
    expect(artifactTypeOf('chart.svg')).toBe('svg')
    expect(artifactTypeOf('data.yml')).toBe('yaml')
    expect(artifactTypeOf('archive.tar.gz')).toBeNull()
    expect(artifactTypeOf('README')).toBeNull()
    // A leading dot names a hidden file, not an extension.
    expect(artifactTypeOf('.md')).toBeNull()
    expect(fileExtensions).toContain('.csv')
    expect(fileExtensions.every((extension) => isArtifactType(artifactTypeOf(`x${extension}`) ?? ''))).toBe(true)
  })

  it('takes the last segment of a path of either separator (a browser may send a Windows path)', () => {
    expect(baseName('C:\\Users\\ada\\Release notes.md')).toBe('Release notes.md')
    expect(baseName('docs/guide.md')).toBe('guide.md')
    expect(artifactTypeOf('C:\\fake.dir\\notes')).toBeNull()
  })

  it('makes the slug from the name without its extension, and nothing from a name with no letters or digits', () => {
    expect(slugOfFileName('My Notes (draft).md')).toBe('my-notes-draft')
    expect(slugOfFileName('Café Menü.txt')).toBe('cafe-menu')
    expect(slugOfFileName('README')).toBe('readme')
    expect(slugOfFileName('___.md')).toBe('')
    expect(slugOfFileName(`${'a'.repeat(80)}.md`)).toHaveLength(64)
  })

  it('titles a Markdown file by its first heading outside front matter and fences, anything else by its name', () => {
    expect(firstHeading('---\ntitle: x\n---\n```\n# not this\n```\n## Real title ##\n')).toBe('Real title')
    expect(firstHeading('no heading\n')).toBeNull()
    expect(titleOfFile('notes.md', 'md', '# Notes for Ada\n')).toBe('Notes for Ada')
    expect(titleOfFile('notes.md', 'md', 'plain\n')).toBe('notes.md')
    expect(titleOfFile('page.html', 'html', '# not markdown\n')).toBe('page.html')
    expect(titleOfFile('x.md', 'md', `# ${'t'.repeat(300)}\n`)).toHaveLength(200)
  })
})
