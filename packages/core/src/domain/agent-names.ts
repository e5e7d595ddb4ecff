/** The longest agent name (issue 30): short enough for a table column and an audit line. */
export const agentNameMaxLength = 80

/** The longest agent description: a sentence or two about what the agent does. */
export const agentDescriptionMaxLength = 500

/** Control characters (C0, DEL, C1) and line/paragraph separators: a name and a description are one plain-text run. */
const controlCharacters = /[\p{Cc}\u2028\u2029]/u

/**
 * The name an agent gets when it registers without one: readable, and derived from its id (the
 * last four characters), so the same agent always reads the same and migration 0008 can give
 * agents registered before names existed the same name in SQL (`'Agent ' || right(id, 4)`).
 */
export function generatedAgentName(agentId: string): string {
  return `Agent ${agentId.slice(-4)}`
}

export type AgentTextCheck = { readonly ok: true; readonly value: string | null } | { readonly ok: false; readonly why: string }

/**
 * An optional plain-text field of a registration (`name`, `description`): absent or null → null;
 * otherwise a string, trimmed, not empty, at most `max` characters, without control characters.
 * `why` names the field, for a `validation_failed`-style error.
 */
export function checkAgentText(field: string, value: unknown, max: number): AgentTextCheck {
  if (value === undefined || value === null) return { ok: true, value: null }
  if (typeof value !== 'string') return { ok: false, why: `${field} must be a string` }
  const text = value.trim()
  if (text === '') return { ok: false, why: `${field} is empty: omit it, or give some text` }
  if ([...text].length > max) return { ok: false, why: `${field} is longer than ${max} characters` }
  if (controlCharacters.test(text)) return { ok: false, why: `${field} must be plain text on one line, without control characters` }
  return { ok: true, value: text }
}
