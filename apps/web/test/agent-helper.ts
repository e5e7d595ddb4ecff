import type { Clock } from '@quire/core'

/** The grant types an agent polls and refreshes with (auth.md Step 5). */
export const CLAIM_GRANT = 'urn:service:params:oauth:grant-type:claim_token'
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** A clock that stands still until a test moves it. */
export class TestClock implements Clock {
  at = Date.now()
  now(): Date {
    return new Date(this.at)
  }
  advance(seconds: number): void {
    this.at += seconds * 1000
  }
}

/** An answer of the layer (or the API), its JSON body read. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: Record<string, unknown>
}

export async function answer(response: Response): Promise<Answer> {
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }
}
