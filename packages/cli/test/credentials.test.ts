/**
 * Credentials against a real Secret Service (gnome-keyring in a private `dbus-run-session`,
 * unlocked, as CI runs it) and a real running Quire: the token lives only in the OS store, a new
 * process finds it, the precedence flag/stdin > AGENT_SERVICE_TOKEN > stored holds, `auth status`
 * names the source and never the secret, logout leaves nothing behind, and without a store login
 * fails fast with a remedy and writes no secret anywhere (research/mcp-cli.md §7, items 21–23).
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { settleAll } from '@quire/testing/processes'
import { timeoutFor } from '@quire/testing/waits'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AT_ONCE_MS, commandsTimeout, type Finished, type Quire, startQuire } from './quire-process.ts'
import { type SecretService, startSecretService } from './secret-service.ts'

let quire: Quire
let keyring: SecretService
let ada = ''
let bob = ''
let carol = ''

beforeAll(async () => {
  // Each is kept as soon as it is up, and both have settled before afterAll runs, so that afterAll
  // stops each one that started even when the other failed to.
  await settleAll([
    startQuire().then((started) => {
      quire = started
    }),
    startSecretService().then((started) => {
      keyring = started
    }),
  ])
  ada = await quire.token('ada@example.com')
  bob = await quire.token('bob@example.com')
  carol = await quire.token('carol@example.com')
  // Waits: the starts (at once), three tokens.
}, timeoutFor(4))
afterAll(async () => {
  await keyring?.stop()
  await quire?.stop()
}, timeoutFor(2))

/** `quire` inside the keyring's D-Bus session. */
function inSession(args: readonly string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<Finished> {
  return quire.cli(args, { ...options, env: { ...keyring.env, ...options.env } })
}

function parsed<T = Record<string, unknown>>(done: Finished): T {
  if (done.code !== 0) throw new Error(`exited ${done.code}: ${done.stderr}`)
  return JSON.parse(done.stdout) as T
}

async function emailOf(done: Finished): Promise<string> {
  return parsed<{ email: string }>(done).email
}

/** Every file under a directory, with its content. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    out.push({ path, text: await readFile(path, 'latin1') })
  }
  return out
}

const credentialsFile = () => join(quire.home, '.config', 'quire', 'credentials.json')

describe('the OS credential store (Secret Service)', { timeout: commandsTimeout }, () => {
  it('login --token-stdin keeps the token in the store only; a new process uses it; auth status names the source, never the secret', async () => {
    const login = await inSession(['login', '--token-stdin', '--format', 'json'], { stdin: ada })
    expect(parsed(login)).toMatchObject({ stored: true, baseUrl: quire.apiUrl, source: 'stdin', user: { email: 'ada@example.com' } })
    expect(login.stdout + login.stderr).not.toContain(ada)

    // In the Secret Service, under service "quire" and the base URL.
    const found = await keyring.secretTool(['search', '--all', 'service', 'quire'])
    expect(found.stderr).toContain(`attribute.username = ${quire.apiUrl}`)
    expect(found.stdout).toContain(ada)

    // The metadata file: the owner's only, and without the secret.
    const metadata = await readFile(credentialsFile(), 'utf8')
    expect(metadata).not.toContain(ada)
    expect(JSON.parse(metadata).credentials[quire.apiUrl]).toMatchObject({ kind: 'token', user: { email: 'ada@example.com' } })
    expect((await stat(credentialsFile())).mode & 0o777).toBe(0o600)
    expect((await stat(join(quire.home, '.config', 'quire'))).mode & 0o777).toBe(0o700)

    // A new process, nothing but the store.
    expect(await emailOf(await inSession(['whoami', '--format', 'json']))).toBe('ada@example.com')
    for (const format of ['json', 'text']) {
      const status = await inSession(['auth', 'status', '--format', format])
      expect(status.code).toBe(0)
      expect(status.stdout + status.stderr).not.toContain(ada)
      if (format === 'json') {
        expect(JSON.parse(status.stdout)).toMatchObject({
          source: 'keyring',
          valid: true,
          kind: 'token',
          user: { email: 'ada@example.com' },
          store: { backend: 'secret-service', reachable: true, stored: true },
        })
      } else {
        expect(status.stdout).toMatch(
          /^Signed in to http:\/\/127\.0\.0\.1:\d+ as ada \(ada@example\.com\), with a token from the OS credential store\.\nOS credential store \(secret-service\): holds a token for this base URL\.\n$/,
        )
      }
    }
    // --debug shows the requests, with the credential redacted.
    const debug = await inSession(['whoami', '--debug'])
    expect(debug.code).toBe(0)
    expect(debug.stderr).toContain('[redacted]')
    expect(debug.stdout + debug.stderr).not.toContain(ada)
  })

  it('precedence: --token-stdin and --token beat AGENT_SERVICE_TOKEN, which beats the stored token', async () => {
    expect(parsed(await inSession(['login', '--token-stdin', '--format', 'json'], { stdin: ada }))).toMatchObject({ stored: true })
    const env = { AGENT_SERVICE_TOKEN: bob }

    expect(await emailOf(await inSession(['whoami', '--format', 'json']))).toBe('ada@example.com')
    expect(await emailOf(await inSession(['whoami', '--format', 'json'], { env }))).toBe('bob@example.com')
    expect(await emailOf(await inSession(['whoami', '--format', 'json', '--token', carol], { env }))).toBe('carol@example.com')
    expect(await emailOf(await inSession(['whoami', '--format', 'json', '--token-stdin'], { env, stdin: carol }))).toBe('carol@example.com')

    const sources = [
      { run: inSession(['auth', 'status', '--format', 'json']), source: 'keyring', email: 'ada@example.com' },
      { run: inSession(['auth', 'status', '--format', 'json'], { env }), source: 'env', email: 'bob@example.com' },
      { run: inSession(['auth', 'status', '--format', 'json', '--token', carol], { env }), source: 'flag', email: 'carol@example.com' },
      {
        run: inSession(['auth', 'status', '--format', 'json', '--token-stdin'], { env, stdin: carol }),
        source: 'stdin',
        email: 'carol@example.com',
      },
    ]
    for (const { run, source, email } of sources) {
      const done = await run
      expect(parsed(done)).toMatchObject({
        source,
        valid: true,
        user: { email },
        store: { stored: true, storedUser: { email: 'ada@example.com' } },
      })
      for (const secret of [ada, bob, carol]) expect(done.stdout + done.stderr).not.toContain(secret)
    }

    // A token the API refuses is reported as invalid, still without the secret.
    const refused = await inSession(['auth', 'status', '--format', 'json'], { env: { AGENT_SERVICE_TOKEN: 'qk_not-a-real-key-at-all' } })
    expect(parsed(refused)).toMatchObject({ source: 'env', valid: false, authenticated: false, user: null })
    expect(refused.stdout).not.toContain('qk_not-a-real-key-at-all')
  })

  it('logout forgets the credential: secret-tool finds nothing, whoami exits 4, and a second logout is fine', async () => {
    expect(parsed(await inSession(['login', '--token-stdin', '--format', 'json'], { stdin: ada }))).toMatchObject({ stored: true })
    // --dry-run says what it would do, and does nothing.
    const dryRun = await inSession(['logout', '--dry-run', '--format', 'json'])
    expect(parsed(dryRun)).toMatchObject({ dryRun: true, wouldForget: true, wouldRevoke: null })
    expect((await keyring.secretTool(['search', '--all', 'service', 'quire'])).stdout).toContain(ada)

    const logout = await inSession(['logout', '--format', 'json'])
    // An API key is not an OAuth grant: nothing to revoke, only to forget.
    expect(parsed(logout)).toEqual({ loggedOut: true, baseUrl: quire.apiUrl, revoked: false, removed: { secret: true, metadata: true } })

    const search = await keyring.secretTool(['search', '--all', 'service', 'quire'])
    expect(search.stdout + search.stderr).toBe('')
    expect(JSON.parse(await readFile(credentialsFile(), 'utf8')).credentials).toEqual({})

    const whoami = await inSession(['whoami'])
    expect(whoami.code).toBe(4)
    expect(whoami.stderr).toContain('quire login')
    expect(parsed(await inSession(['auth', 'status', '--format', 'json']))).toMatchObject({
      source: 'none',
      valid: null,
      store: { reachable: true, stored: false },
    })

    const again = await inSession(['logout', '--format', 'json'])
    expect(parsed(again)).toMatchObject({ loggedOut: true, revoked: false, removed: { secret: false, metadata: false } })

    // A token the API refuses is not stored.
    const refused = await inSession(['login', '--token-stdin', '--format', 'json'], { stdin: 'qk_not-a-real-key-at-all' })
    expect(refused.code).toBe(4)
    expect(JSON.parse(refused.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { exitCode: 4 } })
    expect(refused.stderr).toContain('nothing was stored')
    expect((await keyring.secretTool(['search', '--all', 'service', 'quire'])).stdout).toBe('')
  })

  it('--no-input login exits 4 with the remedy, and so does AGENT_SERVICE_NO_INPUT=1', async () => {
    for (const run of [inSession(['login', '--no-input']), inSession(['login'], { env: { AGENT_SERVICE_NO_INPUT: '1' } })]) {
      const done = await run
      expect(done.code).toBe(4)
      expect(done.stderr).toContain('--no-input')
      expect(done.stderr).toContain('AGENT_SERVICE_TOKEN')
      expect(done.stderr).toContain('--token-stdin')
      expect(done.stderr).not.toContain('Open this URL')
      expect(done.ms).toBeLessThan(AT_ONCE_MS)
    }
    const json = await inSession(['login', '--no-input', '--format', 'json'])
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ error: { code: 'login_needs_input', exitCode: 4 } })
  })

  it('a Secret Service that stops answering fails login within the time limit, and a stored token is just not used', async () => {
    keyring.freeze(true)
    try {
      const login = await inSession(['login', '--token-stdin'], { stdin: ada })
      expect(login.code).toBe(8)
      // The store's part is bounded (at 3 s, or sooner by the D-Bus client), never D-Bus's 25 s.
      expect(login.stderr).toContain('nothing was stored')
      expect(login.ms).toBeLessThan(AT_ONCE_MS)
      const whoami = await inSession(['whoami'])
      expect(whoami.code).toBe(4)
      expect(whoami.ms).toBeLessThan(AT_ONCE_MS)
    } finally {
      keyring.freeze(false)
    }
  })
})

describe('without any credential store (no D-Bus session)', { timeout: commandsTimeout }, () => {
  it('login fails at once with exit 8 and the remedy, writes no secret anywhere under HOME; an env token still works', async () => {
    // quire.cli's environment has no DBUS_SESSION_BUS_ADDRESS: no session bus at all.
    const browser = await quire.cli(['login'])
    expect(browser.code).toBe(8)
    expect(browser.ms).toBeLessThan(AT_ONCE_MS)
    expect(browser.stderr).toContain('credential store')
    expect(browser.stderr).toMatch(/gnome-keyring/)
    expect(browser.stderr).toContain('AGENT_SERVICE_TOKEN')
    expect(browser.stderr).toContain('--token-stdin')
    expect(browser.stderr).not.toContain('Open this URL')

    const json = await quire.cli(['login', '--format', 'json'])
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ error: { code: 'credential_store', exitCode: 8 } })

    const withToken = await quire.cli(['login', '--token-stdin'], { stdin: carol })
    expect(withToken.code).toBe(8)
    expect(withToken.ms).toBeLessThan(AT_ONCE_MS)
    for (const file of await filesUnder(quire.home)) expect(file.text.includes(carol), `${file.path} holds the token`).toBe(false)

    expect(await emailOf(await quire.cli(['whoami', '--format', 'json'], { env: { AGENT_SERVICE_TOKEN: carol } }))).toBe(
      'carol@example.com',
    )
    const status = await quire.cli(['auth', 'status', '--format', 'json'], { env: { AGENT_SERVICE_TOKEN: carol } })
    expect(parsed(status)).toMatchObject({ source: 'env', valid: true, store: { reachable: false, stored: null } })
    expect(status.stdout).not.toContain(carol)
    // Without a token either: the API's 401, exit 4, no crash over the missing store.
    expect((await quire.cli(['whoami'])).code).toBe(4)
  })

  it('logout without a store still removes the metadata and says so', async () => {
    const file = credentialsFile()
    const metadata = { version: 1, credentials: { [quire.apiUrl]: { kind: 'token', savedAt: new Date().toISOString() } }, clients: {} }
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, JSON.stringify(metadata), { mode: 0o600 })
    const logout = await quire.cli(['logout', '--format', 'json'])
    expect(parsed(logout)).toMatchObject({ loggedOut: true, revoked: false, removed: { secret: null, metadata: true } })
    expect(logout.stderr).toContain('credential store could not be reached')
    expect(JSON.parse(await readFile(file, 'utf8')).credentials).toEqual({})
  })
})
