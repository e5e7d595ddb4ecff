/**
 * The two homes and the profile, as the functions they are. Signed in: the way to start new work
 * first, then the recent artifacts (title, type, project, version, access, last change), projects
 * and workspaces, and an empty state that says how to begin. Signed out: what Quire is, a labelled
 * static example rendered by the real Markdown renderer, and three ways in whose addresses come
 * from the given origins. The profile carries who the person is and the API documentation.
 */

import type { Artifact, Profile, Project, Workspace } from '@quire/core/contract'
import { describe, expect, it } from 'vitest'
import { ago } from '../src/home/when.ts'
import { type HomeOverview, profilePage, type SignedInHomeView, signedInHome, signedOutHome } from '../src/index.ts'

const now = new Date('2026-03-10T12:00:00.000Z')
const user = { id: 'usr_ada1', email: 'ada@example.com', emailVerified: true, username: 'ada' }
const addresses = { webUrl: 'https://quire.example', apiUrl: 'https://api.quire.example' }
const actor = { kind: 'user', id: 'usr_ada1', label: 'ada' } as const

function artifact(overrides: Partial<Artifact> & Pick<Artifact, 'slug'>): Artifact {
  return {
    id: `art_${overrides.slug}`,
    ownerUsername: 'ada',
    projectSlug: 'notes',
    type: 'md',
    title: `Title of ${overrides.slug}`,
    description: '',
    access: { publicView: false, publicEdit: false },
    latestVersion: 1,
    url: `https://quire.example/ada/notes/${overrides.slug}`,
    createdAt: '2026-03-01T09:00:00.000Z',
    updatedAt: '2026-03-10T11:55:00.000Z',
    createdBy: actor,
    ...overrides,
  }
}

const notes: Project = {
  id: 'prj_1',
  workspaceId: 'ws_1',
  ownerUsername: 'ada',
  slug: 'notes',
  title: 'Notes',
  description: '',
  icon: 'N',
  url: 'https://quire.example/ada/notes',
  createdAt: '2026-03-01T08:00:00.000Z',
  createdBy: actor,
}
const personal: Workspace = {
  id: 'ws_1',
  slug: 'ada',
  name: 'ada',
  kind: 'personal',
  plan: 'free',
  role: 'owner',
  createdAt: '2026-03-01T08:00:00.000Z',
}

const page = <T>(items: readonly T[]) => ({ items, nextCursor: null })

function home(overview: HomeOverview | null, more: Partial<SignedInHomeView> = {}): string {
  return signedInHome({ ...addresses, user, csrfToken: 'csrf-1', now, overview, ...more })
}

/** The page's main content (the header names the person too). */
const main = (text: string) => text.slice(text.indexOf('<main>'), text.indexOf('</main>'))

describe('the signed-in home', () => {
  const overview: HomeOverview = {
    workspaces: page([personal]),
    projects: page([notes]),
    artifacts: page([
      artifact({
        slug: 'plan',
        title: 'Plan <b>A</b>',
        latestVersion: 3,
        access: { publicView: true, publicEdit: false },
        updatedAt: '2026-03-10T11:55:00.000Z',
      }),
      artifact({ slug: 'data', type: 'json', projectSlug: 'ops', ownerUsername: 'acme', updatedAt: '2026-02-01T10:00:00.000Z' }),
    ]),
  }

  it('leads with New artifact and New project, then recent artifacts, projects and workspaces, in that order', () => {
    const body = main(home(overview))
    const order = [
      'class="button" href="/new">New artifact</a>',
      'href="/new/project">New project</a>',
      'Recently changed',
      'Your projects',
      'Your workspaces',
    ].map((marker) => body.indexOf(marker))
    expect(order.every((at) => at >= 0)).toBe(true)
    expect(order).toEqual([...order].sort((a, b) => a - b))
  })

  it('shows each artifact with its title, type, linked project, version, access and last change', () => {
    const body = home(overview)
    expect(body).toContain('<a class="listing-title" href="/ada/notes/plan">Plan &lt;b&gt;A&lt;/b&gt;</a>')
    expect(body).not.toContain('<b>A</b>')
    expect(body).toContain('<a class="listing-project" href="/ada/notes">ada / notes</a>')
    expect(body).toContain('<a class="listing-project" href="/acme/ops">acme / ops</a>')
    expect(body).toContain('<span title="Latest version">v3</span>')
    expect(body).toContain('<span class="type-tag" title="Type">json</span>')
    expect(body).toContain('<span class="badge">Public</span>')
    expect(body).toContain('<span class="badge private">Private</span>')
    expect(body).toContain('<time datetime="2026-03-10T11:55:00.000Z" title="2026-03-10 11:55 UTC">5 minutes ago</time>')
    expect(body).toContain('<time datetime="2026-02-01T10:00:00.000Z" title="2026-02-01 10:00 UTC">1 Feb 2026</time>')
  })

  it('says when anyone signed in may edit an artifact', () => {
    const open = { ...overview, artifacts: page([artifact({ slug: 'open', access: { publicView: false, publicEdit: true } })]) }
    expect(home(open)).toContain('<span class="badge">Anyone signed in can edit</span>')
    expect(home(overview)).not.toContain('Anyone signed in can edit')
  })

  it('leaves the profile details to /settings', () => {
    const body = main(home(overview))
    expect(body).not.toContain('usr_ada1')
    expect(body).not.toContain('User id')
    expect(body).not.toContain('ada@example.com')
    // The header still says who is signed in, and links the profile.
    expect(home(overview)).toContain('<a class="account-link" href="/settings"><strong>ada@example.com</strong></a>')
  })

  it('starts someone with nothing yet at a new project, and shows how to publish from tools', () => {
    const body = main(home({ workspaces: page([personal]), projects: page([]), artifacts: page([]) }))
    expect(body).toContain('Start with a project')
    expect(body).toContain('<a class="button" href="/new/project">New project</a>')
    expect(body).toContain('<code>/ada/notes</code>')
    expect(body).not.toContain('Recently changed')
    expect(body).toContain('claude mcp add --transport http quire https://quire.example/mcp')
    expect(body).toContain('quire login')
  })

  it('with a project but no artifact, offers a new artifact in that project', () => {
    const body = main(home({ workspaces: page([personal]), projects: page([notes]), artifacts: page([]) }))
    expect(body).toContain('No artifacts yet.')
    expect(body).toContain('<a class="button" href="/new?project=ada%2Fnotes">New artifact</a>')
    expect(body).not.toContain('Start with a project')
    expect(body).toContain('Your projects')
    expect(body).toContain('https://quire.example/mcp')
  })

  it('with several projects, leaves the choice of project to the form', () => {
    const other = { ...notes, id: 'prj_2', slug: 'other', title: 'Other' }
    const body = main(home({ workspaces: page([personal]), projects: page([notes, other]), artifacts: page([]) }))
    expect(body).not.toContain('/new?project=')
  })

  it('shows the actions and says so when the lists could not be read', () => {
    const body = main(home(null))
    expect(body).toContain('could not be listed just now')
    expect(body).toContain('href="/new">New artifact</a>')
    expect(body).not.toContain('Start with a project')
  })
})

describe('the signed-out home', () => {
  const body = signedOutHome({ ...addresses, devSignIn: false })

  it('says what Quire is and leads to the sign-in', () => {
    expect(body).toContain('<h1>Versioned documents for people and AI agents</h1>')
    expect(body).toContain('<a class="button" href="/login">Sign in</a>')
    expect(body).not.toContain('any email address')
    expect(signedOutHome({ ...addresses, devSignIn: true })).toContain('accepts any email address')
  })

  it('shows a labelled example artifact, its Markdown rendered by the real renderer', () => {
    expect(body).toContain('<span class="badge example-badge">Example</span>')
    expect(body).toContain('Weekly status: payments service')
    expect(body).toContain('<span>v3 · public</span>')
    expect(body).toContain('Changed by Status bot (agent of ada)')
    // Markdown, not its source: emphasis, a task list and a table.
    expect(body).toContain('<strong>no customer-facing incidents</strong>')
    expect(body).toMatch(/<input[^>]*type="checkbox"/)
    expect(body).toContain('<table>')
    expect(body).not.toContain('**no customer-facing incidents**')
  })

  it('connects an MCP host to this web origin, as the README does', () => {
    expect(body).toContain('claude mcp add --transport http quire https://quire.example/mcp')
    expect(body).toContain('{ &quot;mcpServers&quot;: { &quot;quire&quot;: { &quot;url&quot;: &quot;https://quire.example/mcp&quot; } } }')
    expect(body).toContain('&quot;type&quot;: &quot;http&quot;, &quot;url&quot;: &quot;https://quire.example/mcp&quot;')
    const elsewhere = signedOutHome({ webUrl: 'https://docs.example.org/', apiUrl: null, devSignIn: false })
    expect(elsewhere).toContain('quire https://docs.example.org/mcp')
    expect(elsewhere).not.toContain('quire.example')
  })

  it('installs the CLI against this API and signs it in', () => {
    expect(body).toContain('npm install -g @quire/cli\nexport AGENT_SERVICE_BASE_URL=https://api.quire.example\nquire login')
    expect(body).toContain('<a href="https://api.quire.example/docs">API documentation</a>')
    const noApi = signedOutHome({ webUrl: 'https://quire.example', apiUrl: null, devSignIn: false })
    expect(noApi).toContain('npm install -g @quire/cli\nquire login')
    expect(noApi).not.toContain('AGENT_SERVICE_BASE_URL')
    expect(noApi).not.toContain('API documentation')
  })
})

describe('the profile', () => {
  const profile: Profile = { ...user, personalWorkspaceId: 'ws_1', plan: 'free', createdAt: '2026-03-01T08:00:00.000Z' }
  const view = { profile, visitor: { email: user.email, username: 'ada' }, csrfToken: 'csrf-1', notice: null, form: null }

  it('shows the email with its verified badge, the username, the user id, the MCP server and the API documentation', () => {
    const body = profilePage({ ...view, ...addresses })
    expect(body).toContain('ada@example.com <span class="badge">verified</span>')
    expect(body).toContain('<dt>Username</dt><dd>ada</dd>')
    expect(body).toContain('<code>usr_ada1</code>')
    expect(body).toContain('<dt>MCP server</dt><dd><code>https://quire.example/mcp</code></dd>')
    expect(body).toContain('<a href="https://api.quire.example/docs">API documentation</a>')
  })

  it('leaves the API out when the web app does not know its address', () => {
    const body = profilePage({ ...view, webUrl: 'https://quire.example', apiUrl: null })
    expect(body).not.toContain('API documentation')
    expect(body).toContain('https://quire.example/mcp')
  })
})

describe('how long ago', () => {
  it('reads as a person says it, then as a date', () => {
    const at = (ms: number) => new Date(now.getTime() - ms).toISOString()
    expect(ago(at(-5_000), now)).toBe('just now')
    expect(ago(at(30_000), now)).toBe('just now')
    expect(ago(at(60_000), now)).toBe('1 minute ago')
    expect(ago(at(59 * 60_000), now)).toBe('59 minutes ago')
    expect(ago(at(2 * 3_600_000), now)).toBe('2 hours ago')
    expect(ago(at(30 * 3_600_000), now)).toBe('1 day ago')
    expect(ago(at(6 * 86_400_000), now)).toBe('6 days ago')
    expect(ago('2025-12-24T23:30:00.000Z', now)).toBe('24 Dec 2025')
  })
})
