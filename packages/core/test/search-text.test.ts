import { describe, expect, it } from 'vitest'
import { searchSnippets } from '../src/domain/search-snippets.ts'
import { needsSubstring, parseSearchQuery, RESIDUE_MAX_LENGTH, searchResidue } from '../src/domain/search-text.ts'

function plan(q: string) {
  const parsed = parseSearchQuery(q)
  if (!parsed.ok) throw new Error(parsed.error.message)
  return parsed.value
}

describe('what full text would not find as written', () => {
  it('is CJK text, snake_case and camelCase identifiers; not plain words, numbers or hyphenated words', () => {
    for (const word of ['检索', 'テスト', '한국어', 'ERR_CONN_RESET', 'snake_case', 'useEffect', 'getHTTPResponse'])
      expect([word, needsSubstring(word)]).toEqual([word, true])
    for (const word of ['deploy', 'Deploy', 'HTTP', 'v2', '2026', '_private', 'trailing_'])
      expect([word, needsSubstring(word)]).toEqual([word, false])
  })

  it('leaves in the residue each such word once, in order, bounded', () => {
    expect(searchResidue('Watch ERR_CONN_RESET and useEffect; again ERR_CONN_RESET.', '部署之前请检查日志。')).toBe(
      'ERR_CONN_RESET\nuseEffect\n部署之前请检查日志',
    )
    const many = Array.from({ length: 20_000 }, (_, i) => `id_${i}`).join(' ')
    const residue = searchResidue(many)
    expect(residue.length).toBeLessThanOrEqual(RESIDUE_MAX_LENGTH)
    expect(residue.startsWith('id_0\nid_1\n')).toBe(true)
  })
})

describe('parseSearchQuery (web-search syntax)', () => {
  it('keeps plain clauses as web-search text for websearch_to_tsquery, and the rest as substring clauses', () => {
    expect(plan('deploy "release notes" -draft')).toMatchObject({
      fullText: 'deploy "release notes" -draft',
      substringClauses: [],
      rankText: 'deploy or "release notes"',
      highlightWords: ['deploy', 'release', 'notes'],
    })
    expect(plan('bread or butter salt')).toMatchObject({ fullText: 'bread or butter salt' })
    expect(plan('deploy ERR_CONN_RESET -检索')).toMatchObject({
      fullText: 'deploy',
      substringClauses: [
        [{ fullText: null, substrings: ['ERR_CONN_RESET'], negated: false }],
        [{ fullText: null, substrings: ['检索'], negated: true }],
      ],
      highlightSubstrings: ['ERR_CONN_RESET'],
    })
    expect(plan('"call useEffect twice" or 部署')).toMatchObject({
      fullText: null,
      substringClauses: [
        [
          { fullText: '"call twice"', substrings: ['useEffect'], negated: false },
          { fullText: null, substrings: ['部署'], negated: false },
        ],
      ],
    })
  })

  it('reads odd input without failing: unclosed quotes, stray or, operators of tsquery', () => {
    expect(plan('"unclosed phrase').fullText).toBe('"unclosed phrase"')
    expect(plan('or deploy or').fullText).toBe('deploy')
    expect(plan('a & b | !c :*').fullText).toBe('a b !c')
  })

  it('refuses a search of only excluded words, and more than 16 words or phrases', () => {
    for (const q of ['-draft', '-a -"b c"', '&&&']) expect(parseSearchQuery(q).ok).toBe(false)
    expect(parseSearchQuery(Array.from({ length: 16 }, (_, i) => `w${i}`).join(' ')).ok).toBe(true)
    const refused = parseSearchQuery(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '))
    expect(refused.ok ? null : refused.error.errors).toEqual([{ path: '/query/q', message: 'must hold at most 16 words or phrases' }])
  })
})

describe('searchSnippets', () => {
  const marked = (snippets: ReturnType<typeof searchSnippets>) =>
    snippets.map((s) => `${s.field}${s.line ? `@${s.line}` : ''}: ${s.segments.map((g) => (g.match ? `[${g.text}]` : g.text)).join('')}`)

  it('marks words by stem and substrings as they are, in the title, the description and up to three passages in all', () => {
    const content = `Intro.\n${'filler words here\n'.repeat(40)}We deployed it.\n${'more filler text\n'.repeat(40)}Then ERR_CONN_RESET came.\n`
    const snippets = searchSnippets(
      { title: 'Deployment guide', description: 'How we deploy', content },
      { stems: ['deploy'], substrings: ['err_conn_reset'] },
    )
    expect(marked(snippets)).toEqual([
      'title: [Deployment] guide',
      'description: How we [deploy]',
      expect.stringMatching(/^content@42: We \[deployed\] it\./),
    ])
    expect(snippets.length).toBe(3)
  })

  it('prefers a passage of a term not shown yet, and reports the line it starts on', () => {
    const content = `one alpha\n${'x '.repeat(200)}\nalpha again\n${'y '.repeat(200)}\nthen beta\n`
    const snippets = searchSnippets({ title: 'T', description: '', content }, { stems: ['alpha', 'beta'], substrings: [] })
    expect(snippets.map((s) => s.line)).toEqual([1, 3, 5])
    expect(marked(snippets)[2]).toMatch(/then \[beta\]$/)
  })

  it('is plain text in segments that join to the passage; markup stays text', () => {
    const [snippet] = searchSnippets(
      { title: '<script>alert(1)</script> plan', description: '', content: '' },
      { stems: ['plan'], substrings: [] },
    )
    expect(snippet?.segments).toEqual([
      { text: '<script>alert(1)</script> ', match: false },
      { text: 'plan', match: true },
    ])
  })

  it('shows the start of the content, unmarked, when nothing can be placed', () => {
    expect(
      marked(searchSnippets({ title: 'T', description: '', content: 'Plain start.\nMore.' }, { stems: ['zzz'], substrings: [] })),
    ).toEqual(['content@1: Plain start. More.'])
  })
})
