import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
let owner: { token: string; username: string }

beforeAll(async () => {
  api = await startTestApi()
  owner = await api.user('text-owner@example.com')
})
afterAll(async () => {
  await api.close()
})

/** Rows of the tables a refused write must not touch. */
async function rows() {
  const db = api.runtime.database.db
  const n = async (table: 'projects' | 'credentials' | 'workspaces' | 'audit_events') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  return {
    projects: await n('projects'),
    credentials: await n('credentials'),
    workspaces: await n('workspaces'),
    audit: await n('audit_events'),
  }
}

function expectRefusal(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, path: string, what: RegExp) {
  expect(res.statusCode).toBe(400)
  expect(res.headers['content-type']).toContain('application/problem+json')
  const problem = res.json() as { code: string; detail: string; errors: { path: string; message: string }[] }
  expect(problem.code).toBe('validation_failed')
  expect(problem.errors[0]?.path).toBe(path)
  expect(problem.errors[0]?.message).toMatch(what)
  expect(problem.detail).toContain(path)
}

describe(`ill-formed text is refused at the edge, naming the field (${engine})`, () => {
  const loneSurrogate = /^must be well-formed text: it contains a lone surrogate \(U\+D800\) at index 4$/

  it('a lone surrogate in a project title: 400 at /body/title, nothing written', async () => {
    const before = await rows()
    const res = await api.request('POST', '/api/projects', {
      token: owner.token,
      body: { ownerUsername: owner.username, slug: 'broken', title: 'Bad \ud800 title', icon: 'b' },
    })
    expectRefusal(res, '/body/title', loneSurrogate)
    expect(await rows()).toEqual(before)
  })

  it('a lone surrogate in an API key name: 400 at /body/name, nothing written', async () => {
    const before = await rows()
    const res = await api.request('POST', '/api/api-keys', {
      token: owner.token,
      body: { name: 'key \ud800', scopes: ['artifacts:read'] },
    })
    expectRefusal(res, '/body/name', loneSurrogate)
    expect(await rows()).toEqual(before)
  })

  it('a lone surrogate in a workspace name: 400 at /body/name, nothing written', async () => {
    const before = await rows()
    const res = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'broken-team', name: 'Team\ud800' } })
    expectRefusal(res, '/body/name', loneSurrogate)
    expect(await rows()).toEqual(before)
  })

  it('names NUL, a trailing high surrogate, a field name and a query parameter the same way', async () => {
    const nul = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'nul-team', name: 'a\u0000b' } })
    expectRefusal(nul, '/body/name', /^must be well-formed text: it contains NUL \(U\+0000\) at index 1$/)
    const trailing = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'hs-team', name: 'ok\udbff' } })
    expectRefusal(trailing, '/body/name', /lone surrogate \(U\+DBFF\) at index 2/)
    const key = await api.request('POST', '/api/workspaces', { token: owner.token, body: { slug: 'key-team', name: 'n', '\udc00': 1 } })
    expectRefusal(key, '/body', /^has a field name that is not well-formed text: it contains a lone surrogate \(U\+DC00\) at index 0$/)
    const query = await api.request('GET', '/api/workspaces?cursor=a%00b', { token: owner.token })
    expectRefusal(query, '/query/cursor', /NUL \(U\+0000\) at index 1/)
    // Well-formed text outside the BMP (a surrogate pair) is text like any other.
    const emoji = await api.request('POST', '/api/workspaces', {
      token: owner.token,
      body: { slug: 'emoji-team', name: 'Team 📝 \u{10FFFF}' },
    })
    expect(emoji.statusCode).toBe(201)
  })
})
