import { type DefaultTreeAdapterTypes, parse } from 'parse5'
import { describe, expect, it } from 'vitest'
import { markdownDocument } from '../../../bench/web/document.ts'
import { CSV_ROW_LIMIT, HIGHLIGHT_BUDGET, MARKDOWN_HIGHLIGHT_BUDGET, renderArtifact } from '../src/index.ts'
import { renderMarkdown } from '../src/markdown.ts'
import { type SanitizeWay, sanitize, sanitizeDocument, urlAllowed } from '../src/sanitize.ts'
import { xssCorpus } from './xss-corpus.ts'

type Element = DefaultTreeAdapterTypes.Element
type Node = DefaultTreeAdapterTypes.Node

const HTML_NS = 'http://www.w3.org/1999/xhtml'

/** The rendered markup as a browser reads it: parsed by parse5 (the HTML standard's parser) into a page body. */
function body(markup: string): Element {
  const document = parse(`<!doctype html><html><head></head><body>${markup}</body></html>`)
  const html = document.childNodes.find((node): node is Element => 'tagName' in node && node.tagName === 'html')
  const found = html?.childNodes.find((node): node is Element => 'tagName' in node && node.tagName === 'body')
  if (!found) throw new Error('no body')
  return found
}

/** Every element under a node, in document order, including template contents. */
function elementsIn(node: Node): Element[] {
  const found: Element[] = []
  const visit = (current: Node): void => {
    if ('tagName' in current) found.push(current)
    if ('content' in current) visit(current.content)
    if ('childNodes' in current) for (const child of current.childNodes) visit(child)
  }
  visit(node)
  return found.filter((element) => element !== node)
}

/** The elements of rendered markup, as a browser would build them. */
function elements(markup: string): Element[] {
  return elementsIn(body(markup))
}

function attr(element: Element, name: string): string | undefined {
  return element.attrs.find((a) => a.name === name)?.value
}

function textOf(node: Node): string {
  if (node.nodeName === '#text' && 'value' in node) return node.value
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : ''
}

function render(type: Parameters<typeof renderArtifact>[0]['type'], content: string) {
  return renderArtifact({ type, content })
}

/**
 * A URL as a browser resolves its scheme: tabs and newlines removed anywhere, leading and
 * trailing spaces and control characters dropped, case ignored.
 */
function schemeOf(url: string): string {
  const cleaned = url
    .replace(/[\t\n\r]/g, '')
    .replace(/^[\s\p{Cc}]+|[\s\p{Cc}]+$/gu, '')
    .toLowerCase()
  return /^([a-z][a-z0-9+.-]*):/.exec(cleaned)?.[1] ?? ''
}

const ACTIVE_ELEMENTS = ['script', 'style', 'iframe', 'frame', 'object', 'embed', 'form', 'button', 'base', 'meta', 'link', 'template']
const ACTIVE_ELEMENTS_ALSO = ['noscript', 'textarea', 'select', 'xmp', 'noembed', 'plaintext', 'title', 'svg', 'math']

/** Everything that would let markup run script or load a document, found in rendered output. */
function hazards(markup: string): string[] {
  const found: string[] = []
  for (const element of elements(markup)) {
    if (element.namespaceURI !== HTML_NS) found.push(`foreign element <${element.tagName}> (${element.namespaceURI})`)
    if (ACTIVE_ELEMENTS.includes(element.tagName) || ACTIVE_ELEMENTS_ALSO.includes(element.tagName))
      found.push(`element <${element.tagName}>`)
    if (element.tagName === 'input' && (attr(element, 'type') !== 'checkbox' || attr(element, 'disabled') === undefined))
      found.push('an input that is not a disabled checkbox')
    for (const { name, value } of element.attrs) {
      if (/^on/i.test(name)) found.push(`event handler ${name}`)
      if (name === 'style') found.push('style attribute')
      if (['javascript', 'vbscript', 'data'].includes(schemeOf(value))) found.push(`${schemeOf(value)}: URL in ${name}`)
      if (['srcdoc', 'formaction', 'action', 'xlink:href', 'srcset', 'target'].includes(name)) found.push(`attribute ${name}`)
    }
  }
  return found
}

describe('renderArtifact: Markdown', () => {
  it('renders a GitHub table with column alignment as the align attribute, and strikethrough', () => {
    const { html } = render('md', '| Name | Count |\n|:-----|:-----:|\n| a | 1 |\n\n~~gone~~')
    const all = elements(html.text)
    const headers = all.filter((e) => e.tagName === 'th')
    expect(headers.map((th) => textOf(th))).toEqual(['Name', 'Count'])
    expect(headers.map((th) => attr(th, 'align'))).toEqual(['left', 'center'])
    expect(all.filter((e) => e.tagName === 'td').map((td) => attr(td, 'align'))).toEqual(['left', 'center'])
    expect(all.find((e) => e.tagName === 's')).toBeDefined()
    expect(html.text).not.toContain('style=')
  })

  it('renders a task list as disabled checkboxes with labels', () => {
    const { html } = render('md', '- [ ] write\n- [x] ship')
    const boxes = elements(html.text).filter((e) => e.tagName === 'input')
    expect(boxes).toHaveLength(2)
    for (const box of boxes) {
      expect(attr(box, 'type')).toBe('checkbox')
      expect(attr(box, 'disabled')).toBeDefined()
    }
    expect(boxes.map((box) => attr(box, 'checked') !== undefined)).toEqual([false, true])
    const labels = elements(html.text).filter((e) => e.tagName === 'label')
    expect(labels.map((label) => attr(label, 'for'))).toEqual(boxes.map((box) => attr(box, 'id')))
    expect(labels.map((label) => textOf(label).trim())).toEqual(['write', 'ship'])
  })

  it('renders footnotes with a reference and a back link', () => {
    const { html } = render('md', 'Claim.[^src]\n\n[^src]: The source.')
    const all = elements(html.text)
    const ref = all.find((e) => e.tagName === 'a' && attr(e, 'href')?.startsWith('#footnote'))
    const target = attr(ref as Element, 'href')?.slice(1)
    const note = all.find((e) => e.tagName === 'li' && attr(e, 'id') === target)
    expect(note && textOf(note)).toContain('The source.')
    expect(all.some((e) => attr(e, 'class') === 'footnote-backref')).toBe(true)
  })

  it('gives headings GitHub-style ids and a labelled permalink, and lists them', () => {
    const { html, headings } = render('md', '# Été *à* Paris\n\n## Usage\n\n## Usage\n\n### `code` & more')
    expect(headings).toEqual([
      { id: 'été-à-paris', text: 'Été à Paris', level: 1 },
      { id: 'usage', text: 'Usage', level: 2 },
      { id: 'usage-1', text: 'Usage', level: 2 },
      { id: 'code--more', text: 'code & more', level: 3 },
    ])
    const all = elements(html.text)
    const h1 = all.find((e) => e.tagName === 'h1') as Element
    expect(attr(h1, 'id')).toBe('été-à-paris')
    expect(attr(h1, 'tabindex')).toBe('-1')
    const links = all.filter((e) => attr(e, 'class') === 'header-anchor')
    expect(links.map((a) => attr(a, 'href'))).toEqual(['#été-à-paris', '#usage', '#usage-1', '#code--more'])
    expect(attr(links[0] as Element, 'aria-label')).toBe('Permalink: Été à Paris')
  })

  it('highlights a fence in a language highlight.js knows, and only escapes one it does not', () => {
    const { html } = render('md', '```ts\nconst a: number = 1\n```\n\n```klingon\n<b>qapla</b>\n```\n\n```\nplain\n```')
    const codes = elements(html.text).filter((e) => e.tagName === 'code')
    expect(codes.map((code) => attr(code, 'class'))).toEqual(['hljs language-ts', 'language-klingon', undefined])
    expect(elementsIn(codes[0] as Element).some((e) => attr(e, 'class') === 'hljs-keyword')).toBe(true)
    expect(elementsIn(codes[1] as Element)).toEqual([])
    expect(textOf(codes[1] as Element)).toBe('<b>qapla</b>\n')
  })

  it('stops highlighting once a document has used its budget, and escapes the rest', () => {
    const fence = `\`\`\`js\n${'let a = 1\n'.repeat(MARKDOWN_HIGHLIGHT_BUDGET / 10 - 1)}\`\`\``
    const codes = elements(render('md', `${fence}\n\n${fence}`).html.text).filter((e) => e.tagName === 'code')
    expect(codes.map((code) => attr(code, 'class'))).toEqual(['hljs language-js', 'language-js'])
    expect(elementsIn(codes[1] as Element)).toEqual([])
  })

  it('autolinks URLs and www. hosts with nofollow, but not file names that look like domains', () => {
    const { html } = render('md', 'See https://example.com/a, www.example.org and README.md or main.py; mail a@example.com.')
    const links = elements(html.text).filter((e) => e.tagName === 'a')
    expect(links.map((a) => attr(a, 'href'))).toEqual(['https://example.com/a', 'http://www.example.org', 'mailto:a@example.com'])
    expect(links.map((a) => attr(a, 'rel'))).toEqual(['nofollow noopener', 'nofollow noopener', undefined])
  })

  it('keeps relative, fragment and mailto links, and http(s) images, and drops data: images', () => {
    const { html } = render(
      'md',
      '[a](/alice/notes/x) [b](#part) [c](mailto:x@example.com) ![d](https://example.com/d.png) ![e](data:image/png;base64,AAAA)',
    )
    const all = elements(html.text)
    expect(all.filter((e) => e.tagName === 'a').map((a) => [attr(a, 'href'), attr(a, 'rel')])).toEqual([
      ['/alice/notes/x', undefined],
      ['#part', undefined],
      ['mailto:x@example.com', undefined],
    ])
    expect(all.filter((e) => e.tagName === 'img').map((img) => attr(img, 'src'))).toEqual(['https://example.com/d.png', undefined])
  })

  it('keeps harmless raw HTML (details, kbd) and drops classes that are not its own', () => {
    const { html } = render(
      'md',
      '<details open><summary>More</summary>\n\nPress <kbd>Ctrl</kbd>.\n\n</details>\n\n<p class="button notice">x</p>',
    )
    const all = elements(html.text)
    expect(all.map((e) => e.tagName)).toEqual(expect.arrayContaining(['details', 'summary', 'kbd']))
    expect(all.find((e) => e.tagName === 'p' && textOf(e) === 'x')?.attrs).toEqual([])
  })

  it('describes the document by its first paragraph, as plain text of at most 200 characters', () => {
    expect(render('md', '# Title\n\nThe *first* [paragraph](https://x.example)\nwraps.\n\nSecond.').description).toBe(
      'The first paragraph wraps.',
    )
    const long = render('md', `${'word '.repeat(100)}\n`).description ?? ''
    expect(long.length).toBeLessThanOrEqual(200)
    expect(long.endsWith('…')).toBe(true)
    expect(render('md', '# Only a title').description).toBeUndefined()
  })

  it('renders the same content to the same markup every time', () => {
    const source = '# A\n\n- [ ] t\n\nx[^1]\n\n[^1]: n\n\n```js\nlet a\n```\n\n# A'
    const first = render('md', source)
    render('md', '# other\n\n- [x] other[^2]\n\n[^2]: n')
    expect(render('md', source)).toEqual(first)
  })
})

describe('renderArtifact: other types', () => {
  it('shows text escaped in a pre, described by its first paragraph', () => {
    const { html, description } = render('txt', 'Hello <b>there</b>\nfriend.\n\nMore.')
    const pre = elements(html.text)
    expect(pre.map((e) => e.tagName)).toEqual(['pre'])
    expect(textOf(pre[0] as Element)).toBe('Hello <b>there</b>\nfriend.\n\nMore.')
    expect(description).toBe('Hello <b>there</b> friend.')
  })

  it('highlights JSON and YAML', () => {
    for (const [type, content] of [
      ['json', '{"a": [1, true, null]}'],
      ['yaml', 'a:\n  - 1\n  - true\n'],
    ] as const) {
      const all = elements(render(type, content).html.text)
      const code = all.find((e) => e.tagName === 'code') as Element
      expect(attr(code, 'class')).toBe(`hljs language-${type}`)
      expect(all.some((e) => attr(e, 'class')?.startsWith('hljs-'))).toBe(true)
      expect(textOf(code)).toBe(content)
    }
  })

  it('highlights a source file past what a Markdown document may have highlighted', () => {
    const content = `[${'{"a": 1},'.repeat(Math.ceil((2 * MARKDOWN_HIGHLIGHT_BUDGET) / 9))}{}]`
    expect(content.length).toBeLessThan(HIGHLIGHT_BUDGET)
    const code = elements(render('json', content).html.text).find((e) => e.tagName === 'code') as Element
    expect(attr(code, 'class')).toBe('hljs language-json')
    expect(textOf(code)).toBe(content)
  })

  it('shows a source file larger than the highlighting budget escaped but plain', () => {
    const content = `[${'{"a": "<b>"},'.repeat(HIGHLIGHT_BUDGET / 10)}{}]`
    const all = elements(render('json', content).html.text)
    expect(all.map((e) => e.tagName)).toEqual(['pre', 'code'])
    expect(textOf(all[1] as Element)).toBe(content)
  })

  it('shows HTML and SVG as highlighted source, never as markup', () => {
    for (const type of ['html', 'svg'] as const) {
      const content = '<svg onload="alert(1)"><circle r="4"/></svg>'
      const all = elements(render(type, content).html.text)
      expect(all.every((e) => ['pre', 'code', 'span'].includes(e.tagName))).toBe(true)
      expect(textOf(all[0] as Element)).toBe(content)
    }
  })

  it('shows mermaid as its escaped source', () => {
    const content = 'graph TD\n  A["<b>x</b>"] --> B'
    const all = elements(render('mermaid', content).html.text)
    expect(all.map((e) => e.tagName)).toEqual(['pre', 'code'])
    expect(attr(all[1] as Element, 'class')).toBe('language-mermaid')
    expect(textOf(all[1] as Element)).toBe(content)
  })

  it('renders CSV as a table with the first row as header, quoted fields intact', () => {
    const all = elements(render('csv', 'name,note\nAda,"likes ""maths"", tea"\nBob,"two\nlines"\nCy').html.text)
    expect(all.filter((e) => e.tagName === 'th').map(textOf)).toEqual(['name', 'note'])
    const rows = all.filter((e) => e.tagName === 'tr').slice(1)
    expect(rows.map((tr) => elementsIn(tr).map(textOf))).toEqual([
      ['Ada', 'likes "maths", tea'],
      ['Bob', 'two\nlines'],
      ['Cy', ''],
    ])
  })

  it('shows a malformed CSV as escaped text', () => {
    const all = elements(render('csv', 'a,"b\n1,<i>2</i>').html.text)
    expect(all.map((e) => e.tagName)).toEqual(['pre'])
    expect(textOf(all[0] as Element)).toBe('a,"b\n1,<i>2</i>')
  })

  it(`caps a CSV table at ${CSV_ROW_LIMIT} rows and says how many more there are`, () => {
    const rows = Array.from({ length: CSV_ROW_LIMIT + 3 }, (_, i) => `${i},x`)
    const all = elements(render('csv', `n,v\n${rows.join('\n')}`).html.text)
    expect(all.filter((e) => e.tagName === 'tr')).toHaveLength(CSV_ROW_LIMIT + 1)
    expect(textOf(all.find((e) => e.tagName === 'p') as Element)).toBe('Showing the first 5,000 rows; 3 more rows are in the raw file.')
  })
})

describe('renderArtifact: XSS corpus', () => {
  it('holds more than 30 payloads', () => {
    expect(xssCorpus.length).toBeGreaterThanOrEqual(30)
    expect(new Set(xssCorpus.map((p) => p.name)).size).toBe(xssCorpus.length)
  })

  it('finds the hazards it looks for (the check itself is not blind)', () => {
    expect(hazards('<script>x</script><svg></svg><math></math>')).toEqual([
      'element <script>',
      'foreign element <svg> (http://www.w3.org/2000/svg)',
      'element <svg>',
      'foreign element <math> (http://www.w3.org/1998/Math/MathML)',
      'element <math>',
    ])
    expect(hazards('<a href=" java&#x09;script:x" onclick="y" style="z">a</a><img src="DATA:x">')).toEqual([
      'javascript: URL in href',
      'event handler onclick',
      'style attribute',
      'data: URL in src',
    ])
  })

  it.each(xssCorpus.map((payload) => [payload.name, payload] as const))('renders %s inert', (_name, payload) => {
    const { html } = renderArtifact(payload)
    expect(hazards(html.text)).toEqual([])
  })

  it('keeps the payloads of source types as visible text', () => {
    for (const payload of xssCorpus.filter((p) => ['html', 'svg', 'txt', 'json', 'yaml', 'mermaid'].includes(p.type))) {
      const pre = elements(renderArtifact(payload).html.text)[0] as Element
      expect(pre.tagName).toBe('pre')
      expect(textOf(pre)).toBe(payload.content)
    }
  })
})

/**
 * A tree as a browser builds it, written out canonically: elements with their attributes sorted,
 * text as it is. Two markups with the same canonical form are the same page for a reader.
 */
function canonical(node: Node): string {
  if (node.nodeName === '#text' && 'value' in node) return JSON.stringify(node.value)
  if (!('tagName' in node)) return ''
  const attributes = [...node.attrs].sort((a, b) => a.name.localeCompare(b.name)).map((a) => `${a.name}=${JSON.stringify(a.value)}`)
  return `<${node.tagName} ${attributes.join(' ')}>${node.childNodes.map(canonical).join('')}</${node.tagName}>`
}

/** Raw HTML opened, closed and left open across Markdown blocks, and links with every kind of URL. */
const nestings: string[] = [
  '<details>\n<summary>More</summary>\n\n- a\n- [ ] b\n\n```js\nlet a = 1\n```\n\n</details>',
  '<div>\n\n| a |\n|---|\n| <div> x |\n\n</div></div></div>\n\nafter',
  '| a |\n|---|\n| <div> |\n\nnext </div></div> paragraph',
  '<p>open paragraph\n\n```js\nlet a\n```\n\n- list\n\n</p>',
  '<b>bold\n\n# Heading\n\ntext</b> and *more*',
  '<a href="https://x.example">\n\n- item [inner](https://y.example)\n\n</a>',
  '<table><tr><td>\n\n# h\n\n</td></tr></table>\n\n| x |\n|---|\n| y |',
  '</div></article></main><p>closing the page</p>\n\n# after',
  '<div title="\n\n# heading inside an attribute\n\n">x</div>\n\ntail',
  '<a title="\n\n```js\nlet a\n```\n\n" href="https://x.example">x</a>',
  '<textarea>\n\n# hidden\n\n</textarea>\n\nshown',
  '<!--\n\n# in a comment\n\n-->\n\nshown',
  '- <div>item\n- next</div>\n\n1. one\n2. <kbd>two</kbd>',
  '> <details>\n> quote\n\n</details>\n\n> plain quote',
  '<ul>\n<li>\n\n* nested\n\n</li>\n</ul>',
  'x[^1] <sup>y</sup>\n\n[^1]: note with <b>html</b>\n\n## After <em>notes</em>',
  '[ftp](ftp://x.example) ![png](data:image/png;base64,AAAA) [mail](mailto:a@b.example) ![rel](/r.png) [pr](//host.example/x)',
  '<https://x.example/a> www.x.example [t](https://x.example "a title") ![m](mailto:a@b.example) [e]()',
  '[r][1] ![i][1]\n\n[1]: HTTPS://X.EXAMPLE/Up "T"',
  '[tab](java%09script:x) [ws](  https://x.example  ) [q](<https://x.example/a b>)',
]

describe('renderArtifact: only the HTML a document writes is sanitised', () => {
  const documents = [
    ...nestings,
    ...xssCorpus.filter((payload) => payload.type === 'md').map((payload) => payload.content),
    ...[1, 2, 3].map((seed) => markdownDocument(48 * 1024, seed)),
    markdownDocument(48 * 1024, 4).replace(/\n\n/g, '\n\n<span>x</span>\n\n'),
  ]

  it.each(documents.map((source, i) => [i, source] as const))('gives what sanitising all of it gives (document %i)', (_i, source) => {
    const whole = sanitize(
      renderMarkdown(source)
        .fragments.map((fragment) => fragment.markup)
        .join(''),
    )
    expect(canonical(body(renderArtifact({ type: 'md', content: source }).html.text))).toBe(canonical(body(whole)))
  })

  it.each(documents.map((source, i) => [i, source] as const))('keeps the page around the document whole (document %i)', (_i, source) => {
    const { html } = renderArtifact({ type: 'md', content: source })
    const page = body(`<main><article><div class="document">${html.text}</div><p id="after">after</p></article></main>`)
    const article = elementsIn(page).find((e) => e.tagName === 'article') as Element
    const children = article.childNodes.filter((node): node is Element => 'tagName' in node)
    expect(children.map((e) => [e.tagName, attr(e, 'class') ?? attr(e, 'id')])).toEqual([
      ['div', 'document'],
      ['p', 'after'],
    ])
    expect(hazards(html.text)).toEqual([])
  })

  it("sends the renderer's own markup past the sanitiser, and the written HTML through it", () => {
    const { fragments } = renderMarkdown('# Title\n\ntext\n\n<div>raw</div>\n\n- a\n- b <kbd>k</kbd>\n\n```js\nlet a\n```')
    expect(fragments.map((fragment) => [fragment.kind, fragment.markup])).toEqual([
      ['made', expect.stringContaining('<div class="markdown-heading">')],
      ['written', '<div>raw</div>\n'],
      ['open', '<ul>\n<li>a</li>\n<li>'],
      ['written', 'b <kbd>k</kbd>'],
      ['open', '</li>\n</ul>\n'],
      ['made', expect.stringContaining('<pre><code class="hljs language-js">')],
    ])
  })

  it('sanitises written inline HTML on its own, and whole blocks or the whole markup only where written tags span the rest', () => {
    const wayOf = (source: string) => {
      const ways: SanitizeWay[] = []
      sanitizeDocument(renderMarkdown(source).fragments, (way) => ways.push(way))
      return ways
    }
    expect(wayOf('# T\n\n- a\n- b\n\n```js\nlet a\n```')).toEqual(['nothing written'])
    expect(wayOf('- a <kbd>k</kbd>\n- b<br>c\n\n| x |\n|---|\n| <sup>1</sup> |\n\n<details>\n\ntext\n\n</details>')).toEqual(['inline'])
    expect(wayOf('- a <b>open\n- b\n\n<details>\n\nin <kbd>k</kbd>\n\n</details>')).toEqual(['blocks'])
    expect(wayOf('<div title="\n\n# swallowed\n\n">x</div>')).toEqual(['whole'])
    expect(wayOf(markdownDocument(64 * 1024, 5))).toEqual(['inline'])
  })

  it('allows link and image URLs as the sanitiser does', () => {
    expect(['https://x.example', 'HTTP://x', 'mailto:a@b', '/r', '#f', '//h/x', 'a/b', '?q'].every((url) => urlAllowed('a', url))).toBe(
      true,
    )
    expect(['javascript:x', 'java\tscript:x', ' data:x', 'ftp://x', 'tel:1', '', 'x<!--y-->:'].some((url) => urlAllowed('a', url))).toBe(
      false,
    )
    expect(urlAllowed('img', 'https://x/i.png')).toBe(true)
    expect(['mailto:a@b', 'data:image/png;base64,AA'].some((url) => urlAllowed('img', url))).toBe(false)
  })
})
