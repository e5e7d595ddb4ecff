/**
 * The one rule for text at every edge: every string Quire takes in (a field's value, an object's
 * field name, a query or path parameter, a form field) is well-formed Unicode and holds no NUL.
 * A lone surrogate has no UTF-8 form (PostgreSQL refuses it in JSON, other stores would silently
 * replace it) and PostgreSQL `text` cannot hold U+0000; no document needs either.
 *
 * It is one generic walk rather than a keyword on each schema, so a field can never be left out:
 * the API's validator compiler runs it on params, query, headers and body of every route, the web
 * app on every query string and form or JSON body, and the MCP server runs it on tool arguments
 * before checking them against the same TypeBox schemas.
 */

/** One offending string: where it is (a JSON pointer into the checked value) and what is wrong. */
export interface TextIssue {
  /** JSON pointer (RFC 6901) to the string, or to the object whose field name is at fault; `''` is the value itself. */
  readonly path: string
  /** Reads after the field's name: `must be well-formed text: it contains a lone surrogate (U+D800) at index 3`. */
  readonly message: string
}

interface Defect {
  readonly what: string
  readonly index: number
}

const loneSurrogate = /\p{Cs}/u

/** What makes a string ill-formed (the first defect), or null when it is acceptable text. */
function defectOf(value: string): Defect | null {
  const nul = value.indexOf('\u0000')
  const surrogate = value.isWellFormed() ? -1 : (loneSurrogate.exec(value)?.index ?? -1)
  if (nul === -1 && surrogate === -1) return null
  if (surrogate === -1 || (nul !== -1 && nul < surrogate)) return { what: 'NUL (U+0000)', index: nul }
  const unit = value.charCodeAt(surrogate).toString(16).toUpperCase()
  return { what: `a lone surrogate (U+${unit})`, index: surrogate }
}

/**
 * Why `value` is not acceptable text (`must be well-formed text: it contains NUL (U+0000) at
 * index 5`), or null when it is. Indexes count UTF-16 code units, as JavaScript strings do.
 */
export function textProblem(value: string): string | null {
  const defect = defectOf(value)
  return defect && `must be well-formed text: it contains ${defect.what} at index ${defect.index}`
}

/** Whether `value` is acceptable text: well-formed Unicode without NUL. */
export function isWellFormedText(value: string): boolean {
  return defectOf(value) === null
}

function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** How deep `acceptable` looks before it leaves the answer to the full walk (a deeper value, or a cycle). */
const quickDepth = 32

/**
 * Whether every string in `value` (field names included) is acceptable text, without noting where:
 * true only when it is sure; false sends the value to the full walk, which finds each defect's path.
 */
function acceptable(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return defectOf(value) === null
  if (typeof value !== 'object' || value === null) return true
  if (depth === quickDepth) return false
  if (Array.isArray(value)) {
    for (const item of value) if (!acceptable(item, depth + 1)) return false
    return true
  }
  if (!isFieldBag(value)) return true
  for (const key of Object.keys(value)) {
    if (defectOf(key) !== null || !acceptable((value as Record<string, unknown>)[key], depth + 1)) return false
  }
  return true
}

/** An object whose own fields are input (JSON, a query or form object, whatever its prototype), not bytes. */
function isFieldBag(value: object): value is Record<string, unknown> {
  return !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer)
}

/**
 * Every ill-formed string in a parsed input (JSON values, query or form objects: strings, arrays
 * and objects' own fields, field names included), in document order, at most `limit` of them.
 * An empty list means the input is acceptable. The walk is iterative, so no nesting depth can
 * overflow the stack.
 */
export function illFormedText(value: unknown, limit = 10): TextIssue[] {
  // Nearly all input is acceptable: say so without building a pointer for every field.
  if (acceptable(value, 0)) return []
  const issues: TextIssue[] = []
  const pending: [unknown, string][] = [[value, '']]
  // Parsed input has no cycles; a value built in code might, and is walked once.
  const seen = new Set<object>()
  while (pending.length > 0 && issues.length < limit) {
    const [item, path] = pending.pop() as [unknown, string]
    if (typeof item === 'string') {
      const message = textProblem(item)
      if (message) issues.push({ path, message })
      continue
    }
    if (typeof item !== 'object' || item === null || seen.has(item)) continue
    seen.add(item)
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${path}/${i}`])
    } else if (isFieldBag(item)) {
      // A bad field name is reported on its object (a pointer through it would be ill-formed too).
      const keys = Object.keys(item)
      const named: string[] = []
      for (const key of keys) {
        const defect = defectOf(key)
        if (defect === null) named.push(key)
        else if (issues.length < limit)
          issues.push({
            path,
            message: `has a field name that is not well-formed text: it contains ${defect.what} at index ${defect.index}`,
          })
      }
      for (let i = named.length - 1; i >= 0; i--) {
        const key = named[i] as string
        pending.push([item[key], `${path}/${pointerToken(key)}`])
      }
    }
  }
  return issues
}
