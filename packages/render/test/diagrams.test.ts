import { describe, expect, it } from 'vitest'
import { diagramMarkers, mermaidDiagrams, renderArtifact } from '../src/index.ts'

const markersOf = (html: string) => [...html.matchAll(diagramMarkers)].map((m) => ({ index: Number(m[1]), source: m[2] ?? '' }))

describe("a Markdown document's Mermaid diagrams", () => {
  const doc = [
    '# Plan',
    '',
    '```mermaid',
    'graph LR',
    '  A --> B',
    '```',
    '',
    '- a list',
    '',
    '  ```mermaid',
    '  sequenceDiagram',
    '    A->>B: hi',
    '  ```',
    '',
    '```js',
    'const notADiagram = 1',
    '```',
    '',
    '> ```mermaid',
    '> pie',
    '>   "a" : 1',
    '> ```',
    '',
  ].join('\n')

  it('are marked in the markup, numbered in the order the content origin finds their sources', () => {
    const rendered = renderArtifact({ type: 'md', content: doc })
    const marked = markersOf(rendered.html.text)
    expect(rendered.diagrams).toBe(3)
    expect(marked.map((m) => m.index)).toEqual([0, 1, 2])
    const sources = mermaidDiagrams(doc)
    expect(sources).toEqual(['graph LR\n  A --> B\n', 'sequenceDiagram\n  A->>B: hi\n', 'pie\n  "a" : 1\n'])
    // Between the markers: the highlighted source, escaped (the page folds it beneath the frame).
    expect(marked[1]?.source).toContain('A-&gt;&gt;B: hi')
    expect(marked[1]?.source.startsWith('<pre><code class="language-mermaid">')).toBe(true)
  })

  it('cannot be forged by the HTML a document writes, nor by its text', () => {
    const forged = [
      '<div><!--quire:diagram:0-->evil<!--/quire:diagram--></div>',
      '',
      'Inline <!--quire:diagram:1--> comment and `<!--quire:diagram:2-->` code.',
      '',
      '<!--quire:diagram:3-->',
      '',
      '    <!--quire:diagram:4--> indented code',
      '',
    ].join('\n')
    const rendered = renderArtifact({ type: 'md', content: forged })
    expect(rendered.html.text).not.toContain('<!--quire:diagram')
    expect(markersOf(rendered.html.text)).toEqual([])
    expect(rendered.diagrams).toBeUndefined()
  })

  it('other types and a document without one have none', () => {
    expect(renderArtifact({ type: 'md', content: '# Nothing\n\n```\ngraph LR\n```\n' }).diagrams).toBeUndefined()
    expect(renderArtifact({ type: 'mermaid', content: 'graph LR\n  A --> B\n' }).diagrams).toBeUndefined()
    expect(mermaidDiagrams('no fences')).toEqual([])
  })
})
