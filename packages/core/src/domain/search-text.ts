import { SEARCH_QUERY_MAX_TERMS } from '../contract/schemas/search.ts'
import { fail, ok, type Result } from './result.ts'

/*
 * What a search query means and what an index row holds, as text: both sides of the search index
 * use these rules, so a term the query looks up as a substring is one the index kept for it.
 *
 * Full text (PostgreSQL's `english` configuration) splits prose into words and stems them; it does
 * not split text written without spaces (Chinese, Japanese, Korean) and it breaks identifiers
 * apart (`ERR_CONN_RESET` becomes three words, `useEffect` one lower-cased word). Such terms are
 * found as substrings, through a trigram index over the row's `residue`: the identifiers and CJK
 * runs of its text, each once.
 */

/** Scripts written without spaces between words. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u

/** A word as the residue and a query term see it: letters, digits and underscores. */
const WORD = /[\p{L}\p{N}_]+/gu

/**
 * Whether full text would not find this word as written: it holds CJK characters, an underscore
 * between word characters (`ERR_CONN_RESET`, `snake_case`), or a lower-case letter followed by an
 * upper-case one (`useEffect`, `getHTTPResponse`).
 */
export function needsSubstring(word: string): boolean {
  return CJK.test(word) || /[\p{L}\p{N}]_+[\p{L}\p{N}]/u.test(word) || /\p{Ll}\p{Lu}/u.test(word)
}

/** The words of a text, in order. */
function wordsOf(text: string): string[] {
  return text.match(WORD) ?? []
}

/** Characters of residue kept per version: enough for every identifier of a large document. */
export const RESIDUE_MAX_LENGTH = 65_536

/**
 * The residue of a version's text: its words that full text would not find as written (see
 * `needsSubstring`), each once, one per line, at most `RESIDUE_MAX_LENGTH` characters.
 */
export function searchResidue(...texts: readonly string[]): string {
  const seen = new Set<string>()
  let length = 0
  for (const text of texts) {
    for (const word of wordsOf(text)) {
      if (seen.has(word) || !needsSubstring(word)) continue
      if (length + word.length + 1 > RESIDUE_MAX_LENGTH) return [...seen].join('\n')
      seen.add(word)
      length += word.length + 1
    }
  }
  return [...seen].join('\n')
}

/**
 * One alternative of a clause that needs the residue: every substring must occur, and its plain
 * words (if any) must match by full text; or, `negated`, not so.
 */
export interface SubstringAlternative {
  /** Its plain words in web-search syntax (a "phrase" when quoted), or null when it has none. */
  readonly fullText: string | null
  readonly substrings: readonly string[]
  readonly negated: boolean
}

/**
 * A parsed query. A hit matches `fullText` (the clauses made of plain words only, in web-search
 * syntax: PostgreSQL reads them with `websearch_to_tsquery`, stop words and all) and every clause
 * of `substringClauses` (those holding an identifier or CJK term: one of its alternatives holds).
 */
export interface SearchPlan {
  readonly fullText: string | null
  readonly substringClauses: readonly (readonly SubstringAlternative[])[]
  /** What ranks a hit: every word or phrase that is not excluded, as alternatives (web-search syntax). */
  readonly rankText: string
  /** The plain words of what is not excluded (their stems mark matches in snippets). */
  readonly highlightWords: readonly string[]
  /** The substring terms of what is not excluded (marked as they are). */
  readonly highlightSubstrings: readonly string[]
}

interface Literal {
  /** The words as written (a phrase's inside when `phrase`). */
  readonly text: string
  readonly phrase: boolean
  readonly negated: boolean
}

/** Splits web-search syntax: "quoted phrases" (an unclosed quote runs to the end), -excluded, `or`, words. */
function tokenize(q: string): (Literal | 'or')[] {
  const tokens: (Literal | 'or')[] = []
  for (const [, minus, quoted, bare] of q.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    if (quoted !== undefined) {
      if (wordsOf(quoted).length > 0) tokens.push({ text: quoted.trim(), phrase: true, negated: minus === '-' })
      continue
    }
    const word = bare ?? ''
    if (word.toLowerCase() === 'or') {
      tokens.push('or')
      continue
    }
    const negated = word.startsWith('-') && word.length > 1
    const text = negated ? word.slice(1) : word
    if (wordsOf(text).length > 0) tokens.push({ text, phrase: false, negated })
  }
  return tokens
}

/** Words in web-search syntax: a phrase quoted, an excluded one with its minus. */
function spell(words: string, phrase: boolean, negated: boolean): string {
  const text = phrase ? `"${words}"` : words
  return negated ? `-${text}` : text
}

/** The clauses of a token list: juxtaposed literals are ANDed, `or` joins two into alternatives. */
function clausesOf(tokens: readonly (Literal | 'or')[]): Literal[][] {
  const clauses: Literal[][] = []
  let joinNext = false
  for (const token of tokens) {
    if (token === 'or') {
      joinNext = clauses.length > 0
      continue
    }
    const last = clauses.at(-1)
    if (joinNext && last) last.push(token)
    else clauses.push([token])
    joinNext = false
  }
  return clauses
}

function substringsOf(literal: Literal): string[] {
  return wordsOf(literal.text).filter(needsSubstring)
}

function alternativeOf(literal: Literal): SubstringAlternative {
  const plain = wordsOf(literal.text).filter((word) => !needsSubstring(word))
  return {
    fullText: plain.length === 0 ? null : spell(plain.join(' '), literal.phrase, false),
    substrings: substringsOf(literal),
    negated: literal.negated,
  }
}

/**
 * Reads a query in web-search syntax, as `websearch_to_tsquery` does: words and phrases are
 * ANDed, `or` between two makes them alternatives, a leading `-` excludes. Bounded to
 * `SEARCH_QUERY_MAX_TERMS` words or phrases, and at least one clause must exclude nothing (a
 * search for only what is absent would read the whole index).
 */
export function parseSearchQuery(q: string): Result<SearchPlan> {
  const tokens = tokenize(q)
  const literals = tokens.filter((t): t is Literal => t !== 'or')
  if (literals.length > SEARCH_QUERY_MAX_TERMS) {
    return fail(
      'validation_failed',
      `A search may hold at most ${SEARCH_QUERY_MAX_TERMS} words or phrases (this one has ${literals.length}).`,
      {
        errors: [{ path: '/query/q', message: `must hold at most ${SEARCH_QUERY_MAX_TERMS} words or phrases` }],
      },
    )
  }
  const clauses = clausesOf(tokens)
  if (!clauses.some((clause) => clause.every((literal) => !literal.negated))) {
    return fail('validation_failed', 'Give at least one word or phrase to find: a search cannot be only of excluded words.', {
      errors: [{ path: '/query/q', message: 'must hold a word or phrase that is not excluded' }],
    })
  }
  const plainClauses = clauses.filter((clause) => clause.every((literal) => substringsOf(literal).length === 0))
  const fullText = plainClauses.map((clause) => clause.map((l) => spell(l.text, l.phrase, l.negated)).join(' or ')).join(' ')
  const wanted = literals.filter((literal) => !literal.negated)
  return ok({
    fullText: plainClauses.length === 0 ? null : fullText,
    substringClauses: clauses.filter((clause) => !plainClauses.includes(clause)).map((clause) => clause.map(alternativeOf)),
    rankText: wanted.map((l) => spell(l.text, l.phrase, false)).join(' or '),
    highlightWords: wanted.flatMap((literal) => wordsOf(literal.text).filter((word) => !needsSubstring(word))),
    highlightSubstrings: wanted.flatMap(substringsOf),
  })
}
