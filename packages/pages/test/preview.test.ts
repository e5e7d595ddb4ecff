/**
 * The preview component alone (data in, HTML out): the frame and its label, the document framed
 * as its artifact page frames it with its ids scoped, and each kind of change it may show. The
 * new-version form's preview in a browser is tested in apps/web/test/version-preview.test.ts.
 */
import { renderArtifact } from '@quire/render'
import { describe, expect, it } from 'vitest'
import { PREVIEW_ID, previewSection } from '../src/index.ts'

const rendered = renderArtifact({ type: 'md', content: '# Content\n\nSee [it](#content).\n' }).html
const diff = '--- v1\n+++ v2\n@@ -1,2 +1,2 @@\n-# Old\n+# Content\n \n'

/** The text of the first element of `markup` with this class, tags dropped and spaces collapsed ('' when there is none). */
function textOf(markup: string, className: string): string {
  const at = markup.search(new RegExp(`<(\\w+)[^>]* class="(?:[^"]* )?${className}(?: [^"]*)?"`))
  if (at === -1) return ''
  const tag = /^<(\w+)/.exec(markup.slice(at))?.[1] ?? ''
  let depth = 0
  let end = at
  for (const match of markup.slice(at).matchAll(new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g'))) {
    depth += match[1] === '/' ? -1 : 1
    if (depth === 0) {
      end = at + (match.index ?? 0) + match[0].length
      break
    }
  }
  return markup
    .slice(at, end)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim()
}

describe('previewSection', () => {
  it('frames the document as its page does, labelled as not saved, with its ids scoped and nothing else when there is no diff', () => {
    const out = previewSection({ title: 'Plan <v2>', type: 'md', rendered }).text
    expect(out).toContain(`<section class="preview" id="${PREVIEW_ID}" aria-labelledby="preview-label preview-heading">`)
    expect(textOf(out, 'preview-label')).toBe('Preview — not saved')
    expect(out).toContain('<h2 id="preview-heading">Plan &lt;v2&gt;</h2>')
    expect(out).toContain('<div class="document document-md">')
    expect(out).toContain('<h1 id="preview-doc-content" tabindex="-1">Content</h1>')
    expect(out).toContain('<a href="#preview-doc-content">it</a>')
    expect(out).not.toContain('id="content"')
    // A new document has nothing to compare with: no changes part, no line about them.
    expect(out).not.toContain('preview-changes')
    expect(textOf(out, 'preview-stat')).toBe('')
    expect(previewSection({ title: 't', type: 'md', rendered, diff: null }).text).toBe(out.replace('Plan &lt;v2&gt;', 't'))
  })

  it('shows the diff in the diff page’s table with its stat, linked from the top', () => {
    const out = previewSection({
      title: 't',
      type: 'md',
      rendered,
      diff: { diff: { diff, additions: 1, deletions: 1 }, from: 1, to: 2 },
    }).text
    expect(textOf(out, 'preview-stat')).toBe('Changes from version 1 +1 line added −1 line removed')
    expect(out).toContain('<a href="#preview-changes">')
    expect(out).toContain('<caption class="sr-only">Changes from version 1 to version 2</caption>')
    expect(out).toContain(
      '<tr class="del"><td class="ln">1</td><td class="ln"></td><td class="code"><span class="sr-only">− </span># Old</td></tr>',
    )
    expect(out).toContain(
      '<tr class="add"><td class="ln"></td><td class="ln">1</td><td class="code"><span class="sr-only">+ </span># Content</td></tr>',
    )
  })

  it('says there are no changes when the text is the version it is based on', () => {
    const out = previewSection({
      title: 't',
      type: 'md',
      rendered,
      diff: { diff: { diff: '', additions: 0, deletions: 0 }, from: 3, to: 4 },
    }).text
    expect(textOf(out, 'preview-stat')).toBe('No changes from version 3')
    expect(textOf(out, 'preview-changes')).toBe('Changes from version 3 No changes from version 3: the content is the same.')
    expect(out).not.toContain('<table')
  })

  it('says why the changes are withheld, escaped, without a diff', () => {
    const out = previewSection({ title: 't', type: 'txt', rendered, diff: { withheld: 'Reading needs <artifacts:read>.' } }).text
    expect(out).toContain('<div class="document document-txt">')
    expect(textOf(out, 'preview-changes')).toBe('Changes Reading needs <artifacts:read>.')
    expect(out).toContain('Reading needs &lt;artifacts:read&gt;.')
    expect(out).not.toContain('<table')
  })
})
