/**
 * `quire login` through the browser, end to end: the real web app as the OAuth authorization
 * server (discovery, dynamic registration, PKCE S256, loopback redirect), a person signing in with
 * the bundled development provider and approving the consent page in headless Chromium, and the
 * tokens kept in a real Secret Service (gnome-keyring in a private `dbus-run-session`). Then what
 * follows a login: a new process uses the stored token, renews it when it expires (rotation), a
 * login with a client the server forgot registers again, and logout revokes the grant.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { launchChromium } from '@quire/testing/chromium'
import { settleAll, spawnTracked, watch } from '@quire/testing/processes'
import { timeoutFor, untilLine } from '@quire/testing/waits'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEntry, commandsTimeout, type Finished, finish, type Quire, startQuire } from './quire-process.ts'
import { type SecretService, startSecretService } from './secret-service.ts'

let quire: Quire
let keyring: SecretService
let browser: Browser
let person: BrowserContext

beforeAll(async () => {
  // Each is kept as soon as it is up, and all have settled before afterAll runs, so that afterAll
  // stops each one that started even when another failed to.
  await settleAll([
    startQuire().then((started) => {
      quire = started
    }),
    startSecretService().then((started) => {
      keyring = started
    }),
    launchChromium().then((started) => {
      browser = started
    }),
  ])
  person = await browser.newContext()
  // Waits: the starts, at once.
}, timeoutFor(1))
afterAll(async () => {
  await browser?.close()
  await keyring?.stop()
  await quire?.stop()
}, timeoutFor(2))

/** The environment of `quire` in the keyring's session: what quire.cli gives it, plus the bus. */
const cliEnv = () => quire.cliEnv(keyring.env)

function inSession(args: readonly string[], env: Record<string, string> = {}): Promise<Finished> {
  return quire.cli(args, { env: { ...keyring.env, ...env } })
}

interface BrowserLogin {
  readonly done: Finished
  /** The authorization URL quire printed. */
  readonly url: URL
}

/**
 * Runs `quire login` (stdin not a terminal, no display: it prints the URL and opens nothing),
 * follows the printed URL in the browser, signs in as `email` when the browser has no session yet,
 * and answers the consent page.
 */
async function loginInBrowser(options: { email?: string; decision?: 'approve' | 'deny' } = {}): Promise<BrowserLogin> {
  const child = spawnTracked(process.execPath, ['--conditions=source', cliEntry, 'login', '--format', 'json'], {
    env: cliEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const finished = finish(child)
  const url = new URL((await untilLine(watch(child), /Open this URL to sign in: (\S+)/))[1] as string)
  const page = await person.newPage()
  try {
    await page.goto(url.href)
    if (options.email) {
      await page.waitForURL(/\/dev-oidc\/interaction\//)
      await page.fill('#email', options.email)
      await page.click('button[value="sign-in"]')
    }
    const decision = options.decision ?? 'approve'
    await page.locator(`button[value="${decision}"]`).waitFor()
    expect(await page.getByText('Quire CLI').count()).toBeGreaterThan(0)
    await Promise.all([
      page.waitForURL((to) => to.hostname === '127.0.0.1' && to.pathname === '/callback'),
      page.click(`button[value="${decision}"]`),
    ])
    expect(await page.locator('h1').textContent()).toBe(decision === 'approve' ? 'Signed in to quire' : 'Sign-in not completed')
  } finally {
    await page.close()
  }
  return { done: await finished, url }
}

const credentialsFile = () => join(quire.home, '.config', 'quire', 'credentials.json')

async function metadataFile(): Promise<{
  credentials: Record<string, { kind: string; clientId?: string; webUrl?: string; expiresAt?: string; user?: { email: string } }>
  clients: Record<string, { clientId: string }>
}> {
  return JSON.parse(await readFile(credentialsFile(), 'utf8'))
}

/** The secret stored for the API, read straight from the Secret Service. */
async function storedSecret(): Promise<{ accessToken: string; refreshToken?: string } | null> {
  const lookup = await keyring.secretTool(['lookup', 'service', 'quire', 'username', quire.apiUrl])
  return lookup.stdout === '' ? null : JSON.parse(lookup.stdout)
}

async function profileStatus(token: string): Promise<number> {
  return (await fetch(`${quire.apiUrl}/api/profile/me`, { headers: { authorization: `Bearer ${token}` } })).status
}

describe('quire login through the browser', { timeout: commandsTimeout }, () => {
  it('signs in with PKCE and a loopback redirect, keeps the tokens in the Secret Service, and a new process is that person', async () => {
    const { done, url } = await loginInBrowser({ email: 'dora@example.com' })
    expect(done.code, done.stderr).toBe(0)
    const result = JSON.parse(done.stdout)
    expect(result).toMatchObject({ loggedIn: true, baseUrl: quire.apiUrl, webUrl: quire.webUrl, user: { email: 'dora@example.com' } })

    // The request quire sent the person to.
    expect(`${url.origin}${url.pathname}`).toBe(`${quire.webUrl}/oauth2/authorize`)
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('resource')).toBe(quire.apiUrl)
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect(url.searchParams.get('state')).toBeTruthy()

    // Tokens in the store; only metadata in the file.
    const secret = await storedSecret()
    expect(secret?.accessToken).toMatch(/^qat_/)
    expect(secret?.refreshToken).toBeTruthy()
    const metadataText = await readFile(credentialsFile(), 'utf8')
    expect(metadataText).not.toContain(secret?.accessToken)
    expect(metadataText).not.toContain(secret?.refreshToken)
    const metadata = await metadataFile()
    expect(metadata.credentials[quire.apiUrl]).toMatchObject({ kind: 'oauth', webUrl: quire.webUrl, user: { email: 'dora@example.com' } })
    expect(metadata.clients[quire.webUrl]?.clientId).toBe(metadata.credentials[quire.apiUrl]?.clientId)
    for (const text of [done.stdout, done.stderr]) expect(text).not.toContain(secret?.accessToken)

    const whoami = await inSession(['whoami', '--format', 'json'])
    expect(JSON.parse(whoami.stdout).email).toBe('dora@example.com')
    const status = await inSession(['auth', 'status', '--format', 'json'])
    const expiresAt = Date.parse(JSON.parse(status.stdout).expiresAt)
    expect(JSON.parse(status.stdout)).toMatchObject({
      source: 'keyring',
      kind: 'oauth',
      valid: true,
      webUrl: quire.webUrl,
      user: { email: 'dora@example.com' },
    })
    expect(expiresAt - Date.now()).toBeGreaterThan(50 * 60_000)
    expect(status.stdout).not.toContain(secret?.accessToken)
  })

  it('an expired access token is renewed with the refresh token on next use, and the rotated pair is stored', async () => {
    const before = await storedSecret()
    const metadata = await metadataFile()
    const entry = metadata.credentials[quire.apiUrl]
    if (!entry) throw new Error('no stored credential')
    entry.expiresAt = new Date(Date.now() - 1_000).toISOString()
    await writeFile(credentialsFile(), JSON.stringify(metadata), { mode: 0o600 })

    const whoami = await inSession(['whoami', '--format', 'json'])
    expect(JSON.parse(whoami.stdout).email).toBe('dora@example.com')
    const after = await storedSecret()
    expect(before).toMatchObject({ accessToken: expect.stringMatching(/^qat_/), refreshToken: expect.stringMatching(/^qrt_/) })
    expect(after).toMatchObject({ accessToken: expect.stringMatching(/^qat_/), refreshToken: expect.stringMatching(/^qrt_/) })
    expect(after?.accessToken).not.toBe(before?.accessToken)
    expect(after?.refreshToken).not.toBe(before?.refreshToken)
    expect(Date.parse((await metadataFile()).credentials[quire.apiUrl]?.expiresAt ?? '') - Date.now()).toBeGreaterThan(50 * 60_000)
    // The next process uses the renewed token as it is.
    expect(JSON.parse((await inSession(['whoami', '--format', 'json'])).stdout).email).toBe('dora@example.com')
    expect((await storedSecret())?.refreshToken).toBe(after?.refreshToken)

    // Several processes finding it expired at once: one renews, the others use its result. (Two
    // presenting the same refresh token would look like theft and revoke the grant.)
    const again = await metadataFile()
    const current = again.credentials[quire.apiUrl]
    if (current) current.expiresAt = new Date(Date.now() - 1_000).toISOString()
    await writeFile(credentialsFile(), JSON.stringify(again), { mode: 0o600 })
    const together = await Promise.all([1, 2, 3, 4].map(() => inSession(['whoami', '--format', 'json'])))
    for (const done of together) expect(JSON.parse(done.stdout).email, done.stderr).toBe('dora@example.com')
    expect((await storedSecret())?.refreshToken).not.toBe(after?.refreshToken)
    expect(JSON.parse((await inSession(['whoami', '--format', 'json'])).stdout).email).toBe('dora@example.com')
  })

  it('a cached client the server no longer knows is registered again; the replaced grant is revoked', async () => {
    const previous = await storedSecret()
    const metadata = await metadataFile()
    metadata.clients[quire.webUrl] = { clientId: 'cli_forgotten' }
    await writeFile(credentialsFile(), JSON.stringify(metadata), { mode: 0o600 })

    // The browser still has its session: straight to the consent page.
    const { done } = await loginInBrowser()
    expect(done.code, done.stderr).toBe(0)
    expect(JSON.parse(done.stdout)).toMatchObject({ loggedIn: true, user: { email: 'dora@example.com' } })
    const clientId = (await metadataFile()).clients[quire.webUrl]?.clientId
    expect(clientId).toMatch(/^cli_/)
    expect(clientId).not.toBe('cli_forgotten')
    expect((await metadataFile()).credentials[quire.apiUrl]?.clientId).toBe(clientId)
    expect(await profileStatus(previous?.accessToken ?? '')).toBe(401)
    expect(await profileStatus((await storedSecret())?.accessToken ?? '')).toBe(200)
  })

  it('declining on the consent page ends quire login with exit 4 and keeps the stored credential', async () => {
    const kept = await storedSecret()
    const { done } = await loginInBrowser({ decision: 'deny' })
    expect(done.code).toBe(4)
    expect(JSON.parse(done.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'access_denied', exitCode: 4 } })
    expect(await storedSecret()).toEqual(kept)
  })

  it('Ctrl-C while waiting for the browser cancels with exit 130 and stores nothing new', async () => {
    const kept = await storedSecret()
    const child = spawnTracked(process.execPath, ['--conditions=source', cliEntry, 'login'], {
      env: cliEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const finished = finish(child)
    await untilLine(watch(child), /Waiting for the sign-in/)
    child.kill('SIGINT')
    const done = await finished
    expect(done.code).toBe(130)
    expect(done.stderr).toContain('Sign-in cancelled')
    expect(await storedSecret()).toEqual(kept)
  })

  it('logout revokes the grant at the server and forgets it here', async () => {
    const secret = await storedSecret()
    const logout = await inSession(['logout', '--format', 'json'])
    expect(JSON.parse(logout.stdout)).toEqual({
      loggedOut: true,
      baseUrl: quire.apiUrl,
      revoked: true,
      removed: { secret: true, metadata: true },
    })
    expect(await profileStatus(secret?.accessToken ?? '')).toBe(401)
    expect(await storedSecret()).toBeNull()
    expect((await keyring.secretTool(['search', '--all', 'service', 'quire'])).stdout).toBe('')
    expect((await inSession(['whoami'])).code).toBe(4)
  })
})
