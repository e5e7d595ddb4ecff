/**
 * One request loads its credential and its artifact once, however many operations its page runs:
 * the session hook and every binding a page calls share the request's loads (core's
 * `requestScope`, through `webDeps`). The stores of the running app count what reaches them, one
 * request at a time. Before the pages ran through the shared loads, the document page loaded the
 * artifact twice (by path, then again with its content), history and diff twice (by path, then with
 * a version), a new version through the edit form twice before its write, and the signed-in home
 * looked the session up four times. (The artifact's one statement still reads the credential with
 * it, for the caller's role there.)
 */

import type { CoreDeps } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWeb, type TestWeb } from './helper.ts'
import { type HttpSession, signInOverHttp } from './http-session.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

let web: TestWeb
let owner: Awaited<ReturnType<typeof userWithKey>>
let session: HttpSession
let doc: { id: string; path: string }
let publicDoc: string
const ownerEmail = 'one.load@example.com'

/** What reached the stores, by `store.method`. */
const reached = new Map<string, number>()

/** Counts every call of these store methods of the running app (the shared loads sit in front of them). */
function countCalls(deps: CoreDeps): void {
  const watched = {
    credentials: ['find'],
    artifacts: ['loadForCaller', 'loadVersionForCaller', 'loadContentForCaller', 'contents', 'append'],
    projects: ['loadNamespaceForCaller'],
    workspaces: ['loadForCaller'],
  } as const
  for (const [storeName, methods] of Object.entries(watched)) {
    const store = deps[storeName as keyof typeof watched] as unknown as Record<string, (...args: unknown[]) => unknown>
    for (const method of methods) {
      const original = store[method]
      if (original === undefined) throw new Error(`no ${storeName}.${method} to count`)
      store[method] = (...args: unknown[]) => {
        const key = `${storeName}.${method}`
        reached.set(key, (reached.get(key) ?? 0) + 1)
        return original.apply(store, args)
      }
    }
  }
}

/** What one request made reach the stores, with its status. */
async function loadsOf(send: () => Promise<Response>): Promise<{ status: number; loads: Record<string, number> }> {
  reached.clear()
  const response = await send()
  await response.arrayBuffer()
  return { status: response.status, loads: Object.fromEntries([...reached].sort(([a], [b]) => a.localeCompare(b))) }
}

const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)

beforeAll(async () => {
  web = await startTestWeb({ api: true })
  owner = await userWithKey(web, ownerEmail)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
  const create = (slug: string, publicView: boolean) =>
    api('POST', '/api/artifacts', {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug,
      type: 'md',
      title: `The ${slug}`,
      content: '# One\n',
      changelog: 'first',
      access: { publicView, publicEdit: false },
    })
  const created = await create('plan', false)
  doc = { id: created.id as string, path: `/${owner.username}/notes/plan` }
  await api('POST', `/api/artifacts/${doc.id}/versions`, { content: '# One\n\nTwo\n', changelog: 'second', expectedLatestVersion: 1 })
  await create('open', true)
  publicDoc = `/${owner.username}/notes/open`
  session = await signInOverHttp(web, ownerEmail)
  countCalls(web.runtime.deps)
})
afterAll(async () => {
  await web?.close()
})

describe('one request, one load of each fact', () => {
  it('the document page: the session once, the artifact once, its content from that load', async () => {
    const { status, loads } = await loadsOf(() => session.get(doc.path))
    expect(status).toBe(200)
    expect(loads).toEqual({ 'artifacts.contents': 1, 'artifacts.loadForCaller': 1, 'credentials.find': 1 })
  })

  it('a pinned version, its raw text, the history and a diff: the same', async () => {
    for (const path of [`${doc.path}?version=1`, `${doc.path}/raw`, `${doc.path}/history`, `${doc.path}/diff?from=1&to=2`]) {
      const { status, loads } = await loadsOf(() => session.get(path))
      expect({ path, status }).toEqual({ path, status: 200 })
      expect({ path, session: loads['credentials.find'], artifact: loads['artifacts.loadForCaller'] }).toEqual({
        path,
        session: 1,
        artifact: 1,
      })
      expect(loads['artifacts.loadVersionForCaller'] ?? 0).toBe(0)
      expect(loads['artifacts.loadContentForCaller'] ?? 0).toBe(0)
    }
  })

  it('a public page read anonymously: no credential, the artifact once', async () => {
    const { status, loads } = await loadsOf(() => fetch(`${web.url}${publicDoc}`, { headers: { accept: 'text/html' } }))
    expect(status).toBe(200)
    expect(loads['credentials.find'] ?? 0).toBe(0)
    expect(loads['artifacts.loadForCaller']).toBe(1)
    expect(loads['artifacts.loadContentForCaller'] ?? 0).toBe(0)
  })

  it('the signed-in home runs three listings on one lookup of the session', async () => {
    const { status, loads } = await loadsOf(() => session.get('/'))
    expect(status).toBe(200)
    expect(loads).toEqual({ 'credentials.find': 1 })
  })

  it('a new version through the edit form: the artifact loaded once before the write, which checks it again itself', async () => {
    const form = await loadsOf(() => session.get(`${doc.path}/edit`))
    expect(form.status).toBe(200)
    expect(form.loads).toEqual({ 'artifacts.contents': 1, 'artifacts.loadForCaller': 1, 'credentials.find': 1 })

    const fields = {
      content: '# One\n\nThree\n',
      changelog: 'third',
      expectedLatestVersion: '2',
      newline: 'lf',
      _csrf: await session.csrf(),
    }
    const saved = await loadsOf(() => session.postForm(`${doc.path}/edit`, fields))
    expect(saved.status).toBe(303)
    expect(saved.loads).toEqual({ 'artifacts.append': 1, 'artifacts.loadForCaller': 1, 'credentials.find': 1 })
    const head = await api('GET', `/api/artifacts/${doc.id}`)
    expect(head.latestVersion).toBe(3)
  })

  it('what a write changed is read afresh in the same request: a conflict shows the version saved meanwhile', async () => {
    await api('POST', `/api/artifacts/${doc.id}/versions`, { content: '# Four\n', changelog: 'fourth', expectedLatestVersion: 3 })
    const response = await session.postForm(`${doc.path}/edit`, {
      content: '# Mine\n',
      changelog: 'mine',
      expectedLatestVersion: '3',
      newline: 'lf',
      _csrf: await session.csrf(),
    })
    expect(response.status).toBe(409)
    const body = await response.text()
    // The diff from the version the person started from (3) to the head the refused write found (4).
    expect(body).toContain('Four')
    expect(body).toContain('value="4"')
  })
})
