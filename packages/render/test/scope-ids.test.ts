import { type DefaultTreeAdapterTypes, parseFragment } from 'parse5'
import { describe, expect, it } from 'vitest'
import { markdownDocument } from '../../../bench/web/document.ts'
import { renderArtifact, SafeHtml, scopeIds } from '../src/index.ts'
import { xssCorpus } from './xss-corpus.ts'

type Node = DefaultTreeAdapterTypes.ChildNode

/**
 * Markup as a browser builds it, written out canonically (attributes sorted, text as it is), with
 * `rename` applied to each attribute: two markups with the same form are the same page.
 */
function tree(markup: string, rename: (name: string, value: string) => string = (_name, value) => value): string {
  const visit = (node: Node): string => {
    if (node.nodeName === '#text' && 'value' in node) return JSON.stringify(node.value)
    if (!('tagName' in node)) return ''
    const attributes = [...node.attrs]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((a) => `${a.name}=${JSON.stringify(rename(a.name, a.value))}`)
    return `<${node.tagName} ${attributes.join(' ')}>${node.childNodes.map(visit).join('')}</${node.tagName}>`
  }
  return parseFragment(markup).childNodes.map(visit).join('')
}

/** What scoping must do to one attribute as the browser reads it, and nothing else. */
const scoped = (name: string, value: string) =>
  name === 'id' || name === 'for' ? `p-${value}` : name === 'href' && value.startsWith('#') ? `#p-${value.slice(1)}` : value

const markdown = (content: string) => renderArtifact({ type: 'md', content }).html

describe('scopeIds', () => {
  it('prefixes heading ids and their permalinks, footnotes, task items and links into the document', () => {
    const rendered = markdown(
      '# Content\n\nSee [below](#notes) and a note[^1].\n\n- [x] done\n\n## Notes\n\n[^1]: The note.\n\n<a id="raw" href="#raw">raw</a>\n',
    )
    const out = scopeIds(rendered, 'p-').text
    expect(out).toContain('<h1 id="p-content" tabindex="-1">Content</h1>')
    expect(out).toContain('href="#p-content"')
    expect(out).toContain('<a href="#p-notes">below</a>')
    expect(out).toContain('id="p-raw" href="#p-raw"')
    // Every id now starts with the prefix, and every in-document link points at one of them.
    const ids = [...out.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1])
    expect(ids.length).toBeGreaterThan(4)
    expect(ids.every((id) => id?.startsWith('p-'))).toBe(true)
    for (const [, target] of out.matchAll(/\shref="#([^"]*)"/g)) expect(ids, target).toContain(target)
    expect(tree(out)).toBe(tree(rendered.text, scoped))
  })

  it('leaves text that looks like an attribute, code and other links as they were', () => {
    const rendered = markdown(
      'Type id="x" and for="y".\n\n<div>id="x" <span>for="y"</span> href="#z"</div>\n\n```html\n<a id="x" href="#x">x</a>\n```\n\n[out](https://example.com/#top) [rel](/a#b)\n',
    )
    const out = scopeIds(rendered, 'p-').text
    expect(out).toContain('<div>id="x" <span>for="y"</span> href="#z"</div>')
    expect(out).toContain('href="https://example.com/#top"')
    expect(out).toContain('href="/a#b"')
    expect(tree(out)).toBe(tree(rendered.text, scoped))
  })

  it('changes only ids and what points at them, in a large document and in every XSS payload', () => {
    for (const source of [{ type: 'md' as const, content: markdownDocument(64 * 1024, 7) }, ...xssCorpus]) {
      const rendered = renderArtifact(source).html
      expect(tree(scopeIds(rendered, 'p-').text), source.content.slice(0, 60)).toBe(tree(rendered.text, scoped))
    }
  })

  it('refuses a prefix that could change the markup', () => {
    expect(() => scopeIds(new SafeHtml('<p id="a">a</p>'), '"><script>')).toThrow(/letters, digits and hyphens/)
    expect(scopeIds(new SafeHtml('<p id="a">a</p>'), 'preview-').text).toBe('<p id="preview-a">a</p>')
  })
})
