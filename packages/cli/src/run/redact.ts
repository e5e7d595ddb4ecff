import { REDACTED } from '@quire/client'
import { secretPrefixes } from '@quire/core/contract'

const bearer = /(Bearer\s+)[^\s"']+/gi
const secrets = new RegExp(`\\b(${Object.values(secretPrefixes).join('|')})[A-Za-z0-9_-]{8,}`, 'g')

/** Bearer secrets never reach the terminal: not in a message, a hint or a stack trace. */
export function redact(text: string): string {
  return text.replace(bearer, `$1${REDACTED}`).replace(secrets, `$1${REDACTED}`)
}
