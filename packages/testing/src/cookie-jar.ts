/**
 * Cookies by name, as a browser keeps them for one host (paths are all `/` in Quire; cookies are
 * per host, not per port, so one jar serves every process on 127.0.0.1, as in a browser).
 */
export class CookieJar {
  readonly #cookies = new Map<string, string>()

  /** Keeps what a response sets, and forgets what it expires. */
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (/;\s*expires=Thu, 01 Jan 1970/i.test(line) || /;\s*max-age=0/i.test(line) || value === '') this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
  }

  /** The `cookie` request header. */
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  has(name: string): boolean {
    return this.#cookies.has(name)
  }
}
