/**
 * Who sees what, page by page. A private artifact whose title, description, content, changelogs
 * and project carry distinctive markers, and a public one in the same project, are requested as
 * everyone who might ask: anonymous, a signed-in stranger, a viewer on the allowlist, a share link
 * (viewer and editor), a revoked and an expired link, a workspace member, the owner; and again
 * once both are deleted. For every request: the status is the one this table says and the one the
 * API answers the same person (a 200 there is a 200 here, a refusal a 404), and a response to
 * anyone the API would not show the private artifact holds none of its markers, anywhere (body,
 * `<head>`, headers). Public pages carry the preview tags; private ones none.
 */
import { randomBytes } from 'node:crypto'
import { runningClock } from '@quire/testing/running-clock'
import { testEngine } from '@quire/testing/test-database'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserTimeout, launchChromium, signInWithBrowser, startTestWeb, type TestWeb } from './helper.ts'
import { restCall, userWithKey } from './mcp-helper.ts'

const mark = randomBytes(4).toString('hex')
/** What only the private artifact's readers may see (its project's names: only members). */
const secret = {
  title: `Merger plan ${mark}-TITLE`,
  description: `Quiet talks ${mark}-DESCRIPTION`,
  first: `First draft ${mark}-CONTENT-ONE`,
  second: `Second draft ${mark}-CONTENT-TWO`,
  changelog: `Reworded ${mark}-CHANGELOG`,
}
const projectSecret = { title: `Strategy ${mark}-PROJECT`, description: `Board only ${mark}-PROJECT-DESCRIPTION` }
const open = { title: 'Office move', description: 'We move on Friday.', content: 'The new office opens on Monday.' }

const emails = {
  owner: 'matrix.owner@example.com',
  stranger: 'matrix.stranger@example.com',
  viewer: 'matrix.viewer@example.com',
  member: 'matrix.member@example.com',
} as const
type Person = keyof typeof emails
type LinkKind = 'viewer link' | 'editor link' | 'revoked link' | 'expired link'
type Identity = 'anonymous' | Person | LinkKind
const identities: readonly Identity[] = [
  'anonymous',
  'stranger',
  'viewer',
  'viewer link',
  'editor link',
  'revoked link',
  'expired link',
  'member',
  'owner',
]

type ArtifactPage = 'latest' | 'pinned' | 'raw' | 'history' | 'diff'
type Which = 'private' | 'public'

let web: TestWeb
let browser: Browser | undefined
const keys = {} as Record<Person, string>
const contexts = {} as Record<Person, BrowserContext>
const links = {} as Record<LinkKind, string>
/** The use-cases' clock: the expired link expires when the set-up moves it past the link's hour. */
const clock = runningClock()
const HOUR_MS = 3_600_000
const artifacts = {} as Record<Which, { id: string; path: string }>
let ownerUsername = ''

const api = (method: string, path: string, body?: unknown) => restCall(web, keys.owner, method, path, body)

beforeAll(async () => {
  web = await startTestWeb({ api: true, clock })
  for (const person of Object.keys(emails) as Person[]) keys[person] = (await userWithKey(web, emails[person])).token
  ownerUsername = ((await api('GET', '/api/profile/me')) as { username: string }).username
  await api('POST', '/api/projects', { ownerUsername, slug: 'plans', icon: 'P', ...projectSecret })
  const create = async (slug: string, fields: Record<string, unknown>, next: string) => {
    const created = await api('POST', '/api/artifacts', { ownerUsername, projectSlug: 'plans', slug, type: 'md', ...fields })
    const id = created.id as string
    await api('POST', `/api/artifacts/${id}/versions`, { content: next, changelog: fields.changelog, expectedLatestVersion: 1 })
    return { id, path: `/${ownerUsername}/plans/${slug}` }
  }
  artifacts.private = await create(
    'plan',
    {
      title: secret.title,
      description: secret.description,
      content: secret.first,
      changelog: secret.changelog,
      access: { publicView: false, publicEdit: false, viewerEmails: [emails.viewer] },
    },
    secret.second,
  )
  artifacts.public = await create(
    'office',
    { ...open, changelog: 'Announced', access: { publicView: true, publicEdit: false } },
    `${open.content}\n\nBring your badge.`,
  )

  // The member joins the owner's personal workspace by invitation.
  const workspaces = (await api('GET', '/api/workspaces')) as { items: { id: string; slug: string }[] }
  const personal = workspaces.items.find((w) => w.slug === ownerUsername)
  const invitation = await api('POST', `/api/workspaces/${personal?.id}/invitations`, { email: emails.member, role: 'member' })
  await restCall(web, keys.member, 'POST', `/api/workspace-invitations/${invitation.id}/accept`)

  const link = async (body: Record<string, unknown>) => {
    const created = await api('POST', `/api/artifacts/${artifacts.private.id}/share-links`, body)
    return { id: created.id as string, secret: created.secret as string }
  }
  links['viewer link'] = (await link({ role: 'viewer' })).secret
  links['editor link'] = (await link({ role: 'editor' })).secret
  const revoked = await link({ role: 'viewer' })
  await api('POST', `/api/share-links/${revoked.id}/revoke`)
  links['revoked link'] = revoked.secret
  const expiresAt = new Date(clock.now().getTime() + HOUR_MS).toISOString()
  links['expired link'] = (await link({ role: 'viewer', expiresAt })).secret
  // It worked while it lasted.
  expect((await fetch(`${web.url}/s/${encodeURIComponent(links['expired link'])}`)).status).toBe(200)

  browser = await launchChromium()
  for (const person of Object.keys(emails) as Person[]) {
    contexts[person] = await browser.newContext()
    const page = await contexts[person].newPage()
    await signInWithBrowser(page, web, emails[person])
    await page.close()
  }
  // Its hour passes on the clock the use-cases read, not in a wait.
  clock.advance(HOUR_MS + 1_000)
}, browserTimeout())
afterAll(async () => {
  await browser?.close()
  await web?.close()
})

const isLink = (who: Identity): who is LinkKind => who.endsWith(' link')
const isPerson = (who: Identity): who is Person => who in emails

/** One request of the matrix: the page, the web path, and the API call that answers the same question for the same credential. */
interface Probe {
  readonly page: string
  readonly path: string
  /** The API path and the credential it is asked with (a person's key, a link's secret, or none). */
  readonly api: { readonly path: string; readonly token: string | null } | null
  /** Whether this request can show the private artifact (so its markers may appear when it answers 200). */
  readonly aboutPrivate: boolean
}

/**
 * What `who` requests. A share link's holder opens the link's pages (`/s/…`, raw, a pinned
 * version); everything else they open signed out, as anyone would.
 */
function probes(who: Identity): Probe[] {
  const token = isPerson(who) ? keys[who] : null
  const list: Probe[] = []
  for (const which of ['private', 'public'] as const) {
    const { id, path } = artifacts[which]
    const viaLink = isLink(who) && which === 'private'
    const base = viaLink ? `/s/${encodeURIComponent(links[who as LinkKind])}` : path
    const credential = viaLink ? links[who as LinkKind] : token
    const add = (page: ArtifactPage, webPath: string, apiPath: string, linkCredential = true) =>
      list.push({
        page: `${which} ${page}`,
        path: webPath,
        api: { path: apiPath, token: linkCredential ? credential : token },
        aboutPrivate: which === 'private',
      })
    add('latest', base, `/api/artifacts/${id}/content`)
    add('pinned', `${base}?version=1`, `/api/artifacts/${id}/content?version=1`)
    add('raw', `${base}/raw`, `/api/artifacts/${id}/content`)
    // The web app has no history or diff under a share link: the holder sees what anyone sees.
    add('history', `${path}/history`, `/api/artifacts/${id}/versions`, false)
    add('diff', `${path}/diff?from=1&to=2`, `/api/artifacts/${id}/diff?from=1&to=2`, false)
  }
  // The project page's REST twin is `listProjectArtifacts` (the same rule); the owner page and the
  // home have none: the table below says what they show.
  list.push({ page: 'owner', path: `/${ownerUsername}`, api: null, aboutPrivate: true })
  list.push({
    page: 'project',
    path: `/${ownerUsername}/plans`,
    api: { path: `/api/projects/${ownerUsername}/plans/artifacts`, token },
    aboutPrivate: true,
  })
  list.push({ page: 'home', path: '/', api: null, aboutPrivate: true })
  return list
}

/** The web app's answer to `who`, as a browser gets it (a signed-in person's session cookie), without following redirects. */
async function requestAs(who: Identity, path: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  if (isPerson(who)) {
    const res = await contexts[who].request.get(`${web.url}${path}`, { headers: { accept: 'text/html' }, maxRedirects: 0 })
    return { status: res.status(), headers: res.headers(), body: await res.text() }
  }
  const res = await fetch(`${web.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' })
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() }
}

/** The API's status for the same question and credential. */
async function apiStatus(call: NonNullable<Probe['api']>): Promise<number> {
  const res = await fetch(`${web.apiUrl}${call.path}`, { headers: call.token ? { authorization: `Bearer ${call.token}` } : {} })
  await res.arrayBuffer()
  return res.status
}

/** Whether `who` may read the private artifact (the API says, for their key or their link). */
async function readsPrivate(who: Identity): Promise<boolean> {
  const token = isPerson(who) ? keys[who] : isLink(who) ? links[who] : null
  return token !== null && (await apiStatus({ path: `/api/artifacts/${artifacts.private.id}`, token })) === 200
}

/**
 * The statuses this table expects. The owner and project pages list everything to members; to
 * anyone else the public artifacts, and are the 404 of a missing namespace once none is left.
 */
function expectedStatus(who: Identity, page: string, deleted: boolean): number {
  const [which, kind] = page.split(' ') as [string, ArtifactPage | undefined]
  const insider = who === 'owner' || who === 'member'
  if (page === 'home') return 200
  if (page === 'owner' || page === 'project') return insider || !deleted ? 200 : 404
  if (deleted) return 404
  if (which === 'public') return 200
  if (insider || who === 'viewer') return 200
  if ((who === 'viewer link' || who === 'editor link') && (kind === 'latest' || kind === 'pinned' || kind === 'raw')) return 200
  return 404
}

const markers = (values: Record<string, string>) => Object.values(values)

/** A private word each page of the private artifact shows to those who may read it (members: the home too; the project page lists it). */
const shownOn: Record<string, string> = {
  project: secret.title,
  'private latest': secret.second,
  'private pinned': secret.first,
  'private raw': secret.second,
  'private history': secret.changelog,
  'private diff': secret.first,
}

/** The markers found anywhere in a response: its headers and its whole body, `<head>` included. */
function leaked(response: { headers: Record<string, string>; body: string }, forbidden: readonly string[]): string[] {
  const everything = `${JSON.stringify(response.headers)}\n${response.body}`
  return forbidden.filter((marker) => everything.includes(marker))
}

/** The preview tags in a page's `<head>`. */
function previewTags(body: string): string[] {
  const head = /<head>([\s\S]*?)<\/head>/.exec(body)?.[1] ?? ''
  return [
    ...head.matchAll(/<(?:meta|link)\b[^>]*(?:property="og:[^"]*"|name="twitter:[^"]*"|name="description"|rel="canonical")[^>]*>/g),
  ].map((m) => m[0])
}

describe(`the viewing matrix (${testEngine})`, { timeout: browserTimeout() }, () => {
  it('gives each person the status the API gives them, and no private marker to anyone the API would not show it', async () => {
    const table: string[] = []
    const problems: string[] = []
    for (const who of identities) {
      const mayReadPrivate = await readsPrivate(who)
      const member = who === 'owner' || who === 'member'
      for (const probe of probes(who)) {
        const response = await requestAs(who, probe.path)
        const expected = expectedStatus(who, probe.page, false)
        table.push(`${who.padEnd(13)} ${probe.page.padEnd(16)} ${response.status}`)
        if (response.status !== expected) problems.push(`${who} / ${probe.page}: ${response.status}, expected ${expected}`)
        if (probe.api) {
          const fromApi = await apiStatus(probe.api)
          if (![200, 401, 404].includes(fromApi)) problems.push(`${who} / ${probe.page}: the API answered ${fromApi}`)
          if ((fromApi === 200 ? 200 : 404) !== response.status)
            problems.push(`${who} / ${probe.page}: the web app answered ${response.status}, the API ${fromApi}`)
        }
        // The private artifact's words only where this request may show it; its project's names only to members.
        const mayShow = mayReadPrivate && probe.aboutPrivate && response.status === 200 && (!isLink(who) || probe.path.startsWith('/s/'))
        const forbidden = [...(mayShow ? [] : markers(secret)), ...(member ? [] : markers(projectSecret))]
        for (const marker of leaked(response, forbidden)) problems.push(`${who} / ${probe.page}: leaked "${marker}"`)
        // And where a page may show them, it does: the checks above look at pages that hold the words.
        const shown = member
          ? { ...shownOn, home: secret.title, project: projectSecret.title }[probe.page]
          : mayShow
            ? shownOn[probe.page]
            : probe.page === 'public latest'
              ? open.content
              : undefined
        if (response.status === 200 && shown !== undefined && !response.body.includes(shown))
          problems.push(`${who} / ${probe.page}: does not show "${shown}"`)
        // Preview tags: every public artifact page that is a document; no private one, to anyone.
        if (response.status === 200 && (probe.page === 'public latest' || probe.page === 'public pinned')) {
          const tags = previewTags(response.body).join('\n')
          for (const tag of [
            'rel="canonical"',
            'name="description"',
            'property="og:title"',
            'property="og:description"',
            'property="og:url"',
            'name="twitter:card"',
            'name="twitter:title"',
          ])
            if (!tags.includes(tag)) problems.push(`${who} / ${probe.page}: no ${tag}`)
          if (!tags.includes(`content="${open.title}"`))
            problems.push(`${who} / ${probe.page}: the preview tags do not name "${open.title}"`)
          if (!tags.includes(`href="${web.url}${artifacts.public.path}`))
            problems.push(`${who} / ${probe.page}: the canonical URL is not the public one`)
        }
        if (probe.page.startsWith('private') && previewTags(response.body).length > 0)
          problems.push(`${who} / ${probe.page}: preview tags on a private page: ${previewTags(response.body).join(' ')}`)
      }
    }
    console.log(`Viewing matrix (${testEngine}), identity / page / status:\n${table.join('\n')}`)
    expect(problems).toEqual([])
    expect(table.length).toBe(identities.length * 13)
  })

  it('after deletion, every page of both artifacts is a 404 to everyone, as the API says, and no listing shows them', async () => {
    await api('DELETE', `/api/artifacts/${artifacts.private.id}`)
    await api('DELETE', `/api/artifacts/${artifacts.public.id}`)
    const problems: string[] = []
    let checked = 0
    for (const who of identities) {
      const member = who === 'owner' || who === 'member'
      for (const probe of probes(who)) {
        const response = await requestAs(who, probe.path)
        checked++
        const expected = expectedStatus(who, probe.page, true)
        if (response.status !== expected) problems.push(`${who} / ${probe.page}: ${response.status}, expected ${expected}`)
        if (probe.api) {
          const fromApi = await apiStatus(probe.api)
          // The project's list stays, empty, for its members; every read of the artifacts is gone.
          if (probe.page === 'project' ? (fromApi === 200 ? 200 : 404) !== response.status : fromApi === 200)
            problems.push(`${who} / ${probe.page}: the API answers ${fromApi}, the web app ${response.status}`)
        }
        const forbidden = [...markers(secret), open.title, ...(member ? [] : markers(projectSecret))]
        for (const marker of leaked(response, forbidden)) problems.push(`${who} / ${probe.page}: leaked "${marker}"`)
      }
    }
    expect(problems).toEqual([])
    expect(checked).toBe(identities.length * 13)
  })
})
