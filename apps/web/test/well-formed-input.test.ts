/**
 * No string makes the web app answer 5xx or send an invalid header: ill-formed text (NUL, lone
 * surrogates) is refused at the edge naming the field, in the endpoint's own error shape, and
 * every redirect's Location is a valid header whatever was asked for. The reported cases first,
 * then a property over the endpoints anyone can call without a credential.
 */
import { illFormedText, signInWithOidc } from '@quire/core'
import { sessionCookieName } from '@quire/web-http'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textArbitrary } from '../../api/test/schema-arbitrary.ts'
import { agentLayerEnv, startTestWeb, type TestWeb } from './helper.ts'

let web: TestWeb
/** A signed-in browser's Cookie header. */
let signedIn: string
/** A registered client and its redirect URI. */
let client: { id: string; redirectUri: string }

beforeAll(async () => {
  web = await startTestWeb({ env: agentLayerEnv() })
  const session = await signInWithOidc(web.runtime.deps, {
    issuer: 'https://idp.example',
    subject: 'text-person',
    email: 'text-person@example.com',
    emailVerified: true,
  })
  signedIn = `${sessionCookieName}=${encodeURIComponent(web.app.signCookie(session.sessionSecret))}`
  const registered = await web.app.inject({
    method: 'POST',
    url: '/oauth2/register',
    payload: { client_name: 'Fuzzed', redirect_uris: ['http://127.0.0.1/cb', 'cursor://fuzz/cb'] },
  })
  expect(registered.statusCode).toBe(201)
  client = { id: registered.json().client_id, redirectUri: 'http://127.0.0.1/cb' }
})
afterAll(async () => {
  await web?.close()
})

/** Another client address per request, so the per-address limits never answer in place of the endpoint. */
let address = 0
function remoteAddress(): string {
  address += 1
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`
}

async function clients(): Promise<number> {
  const row = await web.runtime.database.db
    .selectFrom('oauth_clients')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** A Location header a server can send: printable ASCII only (Node refuses anything else, which became a 500). */
const validLocation = /^[\x21-\x7e]+$/

function expectValidRedirect(res: LightMyRequestResponse): void {
  if (res.headers.location !== undefined) expect(String(res.headers.location)).toMatch(validLocation)
}

describe('the reported cases', () => {
  it('NUL in a registration’s client_name: 400 invalid_client_metadata naming the field, no client registered', async () => {
    const before = await clients()
    const res = await web.app.inject({
      method: 'POST',
      url: '/oauth2/register',
      remoteAddress: remoteAddress(),
      payload: { client_name: 'Evil\u0000client', redirect_uris: ['http://127.0.0.1/cb'] },
    })
    expect(res.statusCode).toBe(400)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: '/body/client_name must be well-formed text: it contains NUL (U+0000) at index 4.',
    })
    // A lone surrogate (sent as a JSON escape, the only way it travels) likewise.
    const surrogate = await web.app.inject({
      method: 'POST',
      url: '/oauth2/register',
      remoteAddress: remoteAddress(),
      headers: { 'content-type': 'application/json' },
      payload: '{"client_name":"\\udc00","redirect_uris":["http://127.0.0.1/cb"]}',
    })
    expect(surrogate.statusCode).toBe(400)
    expect(surrogate.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining('client_name') })
    expect(await clients()).toBe(before)
  })

  it('GET /login?return_to=/%E3%80%82evil while signed in: a redirect to that path, percent-encoded, not a 500', async () => {
    const res = await web.app.inject({
      url: '/login?return_to=/%E3%80%82evil',
      remoteAddress: remoteAddress(),
      headers: { cookie: signedIn },
    })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/%E3%80%82evil')
    // Signed out, the same return_to starts a sign-in (it will come back to the same encoded path).
    const signedOut = await web.app.inject({ url: '/login?return_to=/%E3%80%82evil', remoteAddress: remoteAddress() })
    expect(signedOut.statusCode).toBe(303)
    expectValidRedirect(signedOut)
  })

  it('ill-formed text in a query or form is a 400 naming the parameter, on pages and OAuth endpoints alike', async () => {
    const page = await web.app.inject({ url: '/login?return_to=/a%00b', remoteAddress: remoteAddress() })
    expect(page.statusCode).toBe(400)
    expect(page.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: '/query/return_to' }] })
    const token = await web.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      remoteAddress: remoteAddress(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=authorization_code&code=a%00',
    })
    expect(token.statusCode).toBe(400)
    expect(token.json()).toEqual({
      error: 'invalid_request',
      error_description: '/body/code must be well-formed text: it contains NUL (U+0000) at index 1.',
    })
  })
})

/** Raw query or form pieces, as bytes on the wire (invalid UTF-8, an encoded NUL, non-ASCII). */
const rawPieces = ['', '', '', '%00', '%ED%A0%80', '%C0%80', '%FF', '%E3%80%82', '%E0%A4%A', '%2F%2Fevil.example', '/\\evil']

/** A value for a parameter: one the endpoint expects, or hostile text. */
const param = (...expected: string[]) =>
  fc.option(
    fc.oneof(
      { weight: 2, arbitrary: expected.length > 0 ? fc.constantFrom(...expected) : textArbitrary({ maxLength: 40, clean: true }) },
      { weight: 3, arbitrary: textArbitrary({ maxLength: 200 }) },
    ),
    { nil: undefined },
  )

interface Sent {
  readonly fields: Record<string, string | undefined>
  readonly raw: string
}

function encoded({ fields, raw }: Sent): string {
  const entries = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined)
  const pairs = new URLSearchParams(entries).toString()
  return [pairs, raw && `${raw}=${raw}`].filter(Boolean).join('&')
}

/** Whether the server will see NUL in a form or query (lone surrogates travel as U+FFFD in a URL encoding). */
function carriesNul({ fields, raw }: Sent): boolean {
  return Object.values(fields).some((v) => v?.includes('\u0000')) || raw.includes('%00')
}

const sent = (fields: Record<string, fc.Arbitrary<string | undefined>>) =>
  fc.record({ fields: fc.record(fields), raw: fc.constantFrom(...rawPieces) })

const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

function expectNeverBroken(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, what).toBeLessThan(500)
  expectValidRedirect(res)
}

function expectOAuthRefusal(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, what).toBe(400)
  expect(res.json()).toMatchObject({ error: expect.any(String), error_description: expect.any(String) })
}

describe('no string gives a 5xx or an invalid header at the endpoints anyone can call', () => {
  const runs = { numRuns: 100 }

  it('POST /oauth2/register with hostile JSON metadata', async () => {
    const uri = fc.oneof(
      fc.constantFrom('http://127.0.0.1/cb', 'https://app.example/cb', 'cursor://host/cb', 'https://app.example/。/cb', 'cursor://。/é'),
      textArbitrary({ maxLength: 100 }).map((t) => `https://app.example/${t}`),
      textArbitrary({ maxLength: 100 }),
    )
    const metadata = fc.record(
      {
        client_name: textArbitrary({ maxLength: 200 }),
        redirect_uris: fc.array(uri, { maxLength: 3 }),
        grant_types: fc.array(fc.oneof(fc.constantFrom('authorization_code', 'refresh_token'), textArbitrary()), { maxLength: 2 }),
        response_types: fc.array(fc.oneof(fc.constant('code'), textArbitrary()), { maxLength: 2 }),
        extra: fc.dictionary(textArbitrary({ maxLength: 10 }), textArbitrary({ maxLength: 10 }), { maxKeys: 2 }),
      },
      { requiredKeys: ['redirect_uris'] },
    )
    await fc.assert(
      fc.asyncProperty(metadata, async ({ extra, ...fields }) => {
        const body = { ...extra, ...fields }
        const payload = JSON.stringify(body)
        const res = await web.app.inject({
          method: 'POST',
          url: '/oauth2/register',
          remoteAddress: remoteAddress(),
          headers: { 'content-type': 'application/json' },
          payload,
        })
        expectNeverBroken(res, payload)
        // Two of the 100,000-character strings can make a body over the app's limit: refused
        // unread (413), in RFC 6749's shape, whatever it holds.
        if (Buffer.byteLength(payload) > (web.app.initialConfig.bodyLimit ?? 1_048_576)) {
          expect(res.statusCode, 'over the body limit').toBe(413)
          expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) })
        } else if (illFormedText(body).length > 0) {
          expectOAuthRefusal(res, payload)
          expect(res.json().error).toBe('invalid_client_metadata')
        }
      }),
      // The case a run once found, every time: two 100,000-NUL grant types (1.2 MB of JSON).
      { ...runs, examples: [[{ extra: {}, redirect_uris: [], grant_types: ['\u0000'.repeat(100_000), '\u0000'.repeat(100_000)] }]] },
    )
  })

  /** Posts each generated form to an OAuth client endpoint: never broken, and NUL is refused in RFC 6749's shape. */
  async function postHostileForms(url: string, form: fc.Arbitrary<Sent>) {
    await fc.assert(
      fc.asyncProperty(form, async (s) => {
        const payload = encoded(s)
        const res = await web.app.inject({
          method: 'POST',
          url,
          remoteAddress: remoteAddress(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        })
        expectNeverBroken(res, payload)
        if (carriesNul(s)) expectOAuthRefusal(res, payload)
      }),
      runs,
    )
  }

  it('POST /oauth2/token with hostile form fields', async () => {
    const form = sent({
      grant_type: param('authorization_code', 'refresh_token'),
      code: param(),
      redirect_uri: param(client.redirectUri),
      client_id: param(client.id),
      code_verifier: param('a'.repeat(43)),
      refresh_token: param('qrt_x'),
      resource: param('https://api.quire.test'),
      scope: param('artifacts:read'),
    })
    await postHostileForms('/oauth2/token', form)
  })

  it('POST /oauth2/revoke with hostile form fields', async () => {
    const form = sent({
      token: param('qat_x', 'qrt_x'),
      token_type_hint: param('access_token', 'refresh_token'),
      client_id: param(client.id),
    })
    await postHostileForms('/oauth2/revoke', form)
  })

  it('POST /agent/identity and /agent/identity/claim with hostile JSON: an RFC 6749-shaped refusal or an answer, never a 5xx', async () => {
    const body = fc.record(
      {
        type: fc.oneof(fc.constantFrom('service_auth', 'anonymous', 'login_hint'), textArbitrary({ maxLength: 50 })),
        login_hint: fc.oneof(fc.constantFrom('agent.fuzz@example.com', 'A@B.C'), textArbitrary({ maxLength: 300 })),
        scopes: fc.oneof(
          fc.array(fc.oneof(fc.constant('artifacts:read'), textArbitrary({ maxLength: 40 })), { maxLength: 3 }),
          textArbitrary(),
        ),
        claim_token: fc.oneof(fc.constant('qct_x'), textArbitrary({ maxLength: 100 })),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('/agent/identity', '/agent/identity/claim'), async (fields, url) => {
        const payload = JSON.stringify(fields)
        const res = await web.app.inject({
          method: 'POST',
          url,
          remoteAddress: remoteAddress(),
          headers: { 'content-type': 'application/json' },
          payload,
        })
        expectNeverBroken(res, `${url} ${payload}`)
        expect(res.headers['cache-control'], payload).toBe('no-store')
        if (res.statusCode >= 400)
          expect(res.json(), payload).toMatchObject({ error: expect.any(String), error_description: expect.any(String) })
        if (illFormedText(fields).length > 0) expectOAuthRefusal(res, payload)
      }),
      runs,
    )
  })

  /** GETs each generated query of a page, signed in or not: never broken, and NUL is refused with 400. */
  async function getHostileQueries(path: string, query: fc.Arbitrary<Sent>) {
    await fc.assert(
      fc.asyncProperty(query, fc.boolean(), async (s, withSession) => {
        const url = `${path}?${encoded(s)}`
        const res = await web.app.inject({
          url,
          remoteAddress: remoteAddress(),
          headers: { accept: 'text/html', ...(withSession ? { cookie: signedIn } : {}) },
        })
        expectNeverBroken(res, url)
        if (carriesNul(s)) expect(res.statusCode, url).toBe(400)
      }),
      runs,
    )
  }

  it('GET /agent/claim with a hostile user_code, signed in or not', async () => {
    await getHostileQueries('/agent/claim', sent({ user_code: param('BCDF-GHJK', 'bcdfghjk') }))
  })

  it('GET /oauth2/authorize with a hostile query, signed in or not', async () => {
    const query = sent({
      client_id: param(client.id),
      redirect_uri: param(client.redirectUri, 'http://127.0.0.1:49152/cb', 'cursor://fuzz/cb'),
      response_type: param('code'),
      code_challenge: param(challenge),
      code_challenge_method: param('S256', 'plain'),
      state: param('xyz'),
      scope: param('artifacts:read', 'artifacts:read artifacts:create'),
      resource: param('https://api.quire.test'),
    })
    await getHostileQueries('/oauth2/authorize', query)
  })

  it('GET /login with a hostile return_to, signed in or not', async () => {
    const returnTo = fc.oneof(
      textArbitrary({ maxLength: 100 }).map((t) => `/${t}`),
      textArbitrary({ maxLength: 3000 }),
      fc.constantFrom('/', '/a b', '/\u3002evil', '//evil.example', '/..//evil.example', '/\\evil', 'https://evil.example', '/%2F%2Fevil'),
    )
    await fc.assert(
      fc.asyncProperty(sent({ return_to: fc.option(returnTo, { nil: undefined }) }), fc.boolean(), async (s, withSession) => {
        const url = `/login?${encoded(s)}`
        const res = await web.app.inject({ url, remoteAddress: remoteAddress(), headers: withSession ? { cookie: signedIn } : {} })
        expectNeverBroken(res, url)
        if (carriesNul(s)) expect(res.statusCode, url).toBe(400)
        else expect(res.statusCode, url).toBe(303)
        // Signed in, the redirect stays on this origin: a path, never `//host` or `/\host`.
        if (withSession && res.statusCode === 303) expect(String(res.headers.location)).toMatch(/^\/(?![/\\])/)
      }),
      runs,
    )
  })
})
