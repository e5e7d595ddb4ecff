/**
 * No path of the web app is written outside its table (`src/web-routes.ts`): every route
 * registration, link, form action, redirect and `Location` of the web app's packages is built from
 * `webRoutes`. This reads every source file of those packages, takes each string and template
 * literal (comments and regular expressions left out), and fails on one that writes a web path:
 * a `/` followed by a segment some route has (`/settings`, `/history`) or by a parameter
 * (`/:owner`), at the start of the literal or after a quote, `=`, `(` or a space (an attribute in
 * a page's HTML); or a `/` followed by nothing (`'/'`, `href="/"`, `/${…}`, `${…}/${…}`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { webPaths } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { webRoutes } from '../src/web-routes.ts'

const root = join(import.meta.dirname, '../../..')
const scanned = ['packages/pages/src', 'packages/site/src', 'packages/sign-in/src', 'packages/web-http/src']
const table = 'packages/pages/src/web-routes.ts'

/**
 * Literals that look like web paths and are not, each with why. A stale entry (nothing matches it
 * any more) fails the test as well, so the list only ever holds what is needed.
 */
const exceptions: readonly { readonly file: string; readonly literal: string; readonly reason: string }[] = [
  {
    file: 'packages/site/src/operate.ts',
    literal: '/',
    reason: 'a JSON pointer into the operation input (`/body/name`), not a URL',
  },
  {
    file: 'packages/web-http/src/well-formed-text.ts',
    literal: '/',
    reason: 'a JSON pointer into the request (`/query/return_to`), not a URL',
  },
  {
    file: 'packages/site/src/routes/form-fields.ts',
    literal: '/',
    reason: 'splits a JSON pointer into its parts',
  },
  {
    file: 'packages/sign-in/src/return-to.ts',
    literal: '/',
    reason: 'checks that a return address is a path on this origin (starts with one slash)',
  },
  {
    file: 'packages/site/src/routes/account/refusals.ts',
    literal: '/',
    reason: 'matches a JSON pointer and everything under it (`/body/scopes/0`)',
  },
  {
    file: 'packages/pages/src/account/audit.ts',
    literal: '/',
    reason: 'shows an artifact as `project/slug` in a table cell, as text (the trail links nothing there)',
  },
  {
    file: 'packages/web-http/src/sessions.ts',
    literal: '/',
    reason: "the session cookie's Path attribute: the whole origin, not a route",
  },
  {
    file: 'packages/sign-in/src/dev-oidc/mount.ts',
    literal: '/',
    reason: "the development provider's own root, inside its mount (the URL it is handed)",
  },
]

/** Every TypeScript source file under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file))
}

export interface Literal {
  readonly line: number
  /** A string literal's text, or one static part of a template literal. */
  readonly text: string
}

const keywordsBeforeExpression = new Set([
  'return',
  'typeof',
  'case',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
  'else',
  'do',
])

/**
 * The string literals and the static parts of the template literals of a TypeScript source, in
 * order. Comments are skipped; a `/` where an expression may start opens a regular expression,
 * which is skipped too.
 */
export function literalsOf(source: string): Literal[] {
  const found: Literal[] = []
  const expressions: number[] = [] // open `${`: the depth of braces inside each
  let i = 0
  let line = 1
  let previous = '' // the last significant character ('a' for a word that ends an expression)

  const template = (): void => {
    let text = ''
    const start = line
    while (i < source.length) {
      const c = source[i] as string
      if (c === '\\') {
        text += source.slice(i, i + 2)
        i += 2
        continue
      }
      if (c === '`') {
        found.push({ line: start, text })
        i++
        previous = 'a'
        return
      }
      if (c === '$' && source[i + 1] === '{') {
        found.push({ line: start, text })
        i += 2
        expressions.push(0)
        previous = '{'
        return
      }
      if (c === '\n') line++
      text += c
      i++
    }
  }

  while (i < source.length) {
    const c = source[i] as string
    const next = source[i + 1]
    if (c === '\n') {
      line++
      i++
    } else if (/\s/.test(c)) {
      i++
    } else if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2)
      const stop = end === -1 ? source.length : end + 2
      for (const ch of source.slice(i, stop)) if (ch === '\n') line++
      i = stop
    } else if (c === "'" || c === '"') {
      let text = ''
      i++
      while (i < source.length && source[i] !== c) {
        if (source[i] === '\\') {
          text += source.slice(i, i + 2)
          i += 2
        } else text += source[i++]
      }
      i++
      found.push({ line, text })
      previous = 'a'
    } else if (c === '`') {
      i++
      template()
    } else if (c === '/') {
      if (previous === 'a' || previous === ')' || previous === ']') {
        previous = '/'
        i++
        continue
      }
      // A regular expression: up to the closing slash outside a character class, then its flags.
      let inClass = false
      i++
      while (i < source.length) {
        const r = source[i]
        if (r === '\\') i += 2
        else {
          if (r === '[') inClass = true
          else if (r === ']') inClass = false
          else if (r === '/' && !inClass) break
          i++
        }
      }
      i++
      while (i < source.length && /[a-z]/.test(source[i] as string)) i++
      previous = 'a'
    } else if (c === '{') {
      if (expressions.length > 0) expressions[expressions.length - 1] = (expressions.at(-1) ?? 0) + 1
      previous = '{'
      i++
    } else if (c === '}') {
      i++
      if (expressions.length > 0 && expressions.at(-1) === 0) {
        expressions.pop()
        template()
      } else {
        if (expressions.length > 0) expressions[expressions.length - 1] = (expressions.at(-1) ?? 1) - 1
        previous = '}'
      }
    } else if (/[A-Za-z0-9_$]/.test(c)) {
      let word = ''
      while (i < source.length && /[A-Za-z0-9_$]/.test(source[i] as string)) word += source[i++]
      previous = keywordsBeforeExpression.has(word) ? '(' : 'a'
    } else {
      previous = c
      i++
    }
  }
  return found
}

/** Every static segment of every route, and every top-level name core reserves. */
const segments = new Set([
  ...Object.values(webPaths),
  ...Object.values(webRoutes).flatMap((route) => route.pattern.split('/').filter((s) => s !== '' && !s.startsWith(':') && s !== '*')),
])
const escaped = [...segments].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')
const webPath = new RegExp(`(?:^|["'=\\s(])\\/(?:(?:${escaped})(?=$|[/?#"'\\s])|:[A-Za-z]|\\*(?=$|["']))|(?:^|["'=])\\/(?=$|["'?#])`)

/** Every literal of the scanned packages that writes a web path, outside the table. */
function webPathLiterals(): { file: string; line: number; text: string }[] {
  return scanned
    .flatMap(sources)
    .filter((file) => file !== table)
    .flatMap((file) =>
      literalsOf(readFileSync(join(root, file), 'utf8'))
        .filter(({ text }) => webPath.test(text))
        .map((literal) => ({ file, ...literal })),
    )
}

describe('literalsOf', () => {
  it('finds string literals and the static parts of templates, not comments or regular expressions', () => {
    const source = [
      "// '/settings' in a comment",
      '/** `/settings/keys` in a doc comment */',
      "const a = '/login'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text, templates on purpose
      'const b = "x" + `/s/${token}/raw?${`nested ${deep}`}`',
      "const r = /^\\/(?:s\\/|login)/.test(x) ? a / 2 : '/'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text, templates on purpose
      'const t = html`<a href="${href}">x</a>`',
    ].join('\n')
    expect(literalsOf(source)).toEqual([
      { line: 3, text: '/login' },
      { line: 4, text: 'x' },
      { line: 4, text: '/s/' },
      { line: 4, text: '/raw?' },
      { line: 4, text: 'nested ' },
      { line: 4, text: '' },
      { line: 4, text: '' },
      { line: 5, text: '/' },
      { line: 6, text: '<a href="' },
      { line: 6, text: '">x</a>' },
    ])
  })

  it('tells web paths from other text with slashes', () => {
    for (const text of [
      '/settings',
      '/settings/keys',
      'action="/agent/claim"',
      '/history',
      '/',
      'href="/"',
      '/:owner/:project',
      '/.well-known/x',
    ])
      expect(webPath.test(text), text).toBe(true)
    for (const text of [
      'text/plain; charset=utf-8',
      '</a>',
      '/body/name',
      'https://example.com/x',
      '//',
      'a/b',
      '/docs',
      ' / ',
      'rgb(0 0 0 / 6%)',
      '\n/* a comment in CSS */',
    ])
      expect(webPath.test(text), text).toBe(false)
  })
})

describe('web paths', () => {
  it(`are written only in ${relative(root, join(root, table))}`, () => {
    const allowed = (file: string, text: string) => exceptions.some((e) => e.file === file && e.literal === text)
    const unexpected = webPathLiterals().filter(({ file, text }) => !allowed(file, text))
    expect(unexpected.map(({ file, line, text }) => `${file}:${line}: ${JSON.stringify(text)}`)).toEqual([])
  })

  it('keep no stale exception', () => {
    const found = webPathLiterals()
    const stale = exceptions.filter((e) => !found.some(({ file, text }) => file === e.file && text === e.literal))
    expect(stale).toEqual([])
    for (const e of exceptions) expect(e.reason.length, e.file).toBeGreaterThan(10)
  })
})
