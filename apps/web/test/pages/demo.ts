/**
 * The demo world every page template is opened in: one person (`ana`) with two projects and an
 * artifact of every type, the Markdown one with three versions and changelogs, share links and a
 * registered OAuth client. Made over REST, as a person's scripts would; realistic enough that the
 * screenshots in `docs/screenshots/` read like a real team's documents.
 */
import type { TestWeb } from '../helper.ts'
import { signInOverHttp } from '../http-session.ts'
import { restCall, userWithKey } from '../mcp-helper.ts'

export const DEMO_OWNER_EMAIL = 'ana@example.com'

/** What the templates need to know of the demo world: paths to open and who owns them. */
export interface Demo {
  readonly owner: { readonly email: string; readonly username: string; readonly token: string }
  /** `/ana/handbook`. */
  readonly project: string
  /** The public Markdown document with three versions. */
  readonly document: string
  /** The private Markdown document the share links open. */
  readonly privateDocument: string
  /** A public Markdown document with a Mermaid diagram. */
  readonly diagramDocument: string
  /** One artifact of each other type, by type. */
  readonly byType: Readonly<Record<'json' | 'yaml' | 'txt' | 'csv' | 'html' | 'svg' | 'mermaid', string>>
  /** `/s/<secret>` of a viewer link and of an editor link to the private document. */
  readonly viewerLink: string
  readonly editorLink: string
  /** A client registered with the OAuth server, redirecting to a loopback address. */
  readonly oauthClientId: string
  /** The owner's team workspace (with a member and a pending invitation). */
  readonly teamWorkspaceId: string
  /** Agents: the code of one waiting for the owner to confirm, and of one naming someone else (the owner has claimed a third). */
  readonly agentCode: string
  readonly othersAgentCode: string
  /** The code of the connected agent's request for one more scope (step-up), waiting for the owner. */
  readonly stepUpCode: string
}

const releaseIntro = `# Release process

How we ship a new version of the service, from the release branch to production. Anyone on the
team can run a release; the release lead of the week signs it off.
`

const releaseSteps = `
## Steps

| Step | Who | Takes |
|:-----|:----|------:|
| Tag the release | Release lead | 2 min |
| Deploy to staging | CI | 8 min |
| Smoke tests on staging | QA | 15 min |
| Deploy to production | Release lead | 10 min |

\`\`\`bash
git switch release
git tag -a v2.4.0 -m "Release 2.4.0"
git push origin v2.4.0
\`\`\`
`

const releaseChecklist = `
## Before you start

- [x] The release branch is green on CI
- [x] The changelog names every user-visible change
- [ ] Someone from on-call is around for the next hour

> **Tip:** release before 15:00, so there is time to roll back before the end of the day.
`

const releaseRollback = `
## Rolling back

If the error rate doubles within ten minutes, roll back first and investigate after:

\`\`\`ts
export async function rollback(to: string): Promise<void> {
  await deploy({ tag: to, environment: 'production' })
  await notify('#releases', \`Rolled back to \${to}\`)
}
\`\`\`

Questions go to the *#releases* channel.[^lead]

[^lead]: Or to the release lead of the week: see the on-call rota.
`

/** The three versions of the release process, each with the changelog that wrote it. */
const releaseVersions: readonly { content: string; changelog: string }[] = [
  { content: releaseIntro + releaseSteps, changelog: 'First draft of the release process' },
  { content: releaseIntro + releaseSteps + releaseRollback, changelog: 'Add how to roll back' },
  {
    content:
      releaseIntro +
      releaseChecklist +
      releaseSteps.replace('| Smoke tests on staging | QA | 15 min |', '| Smoke tests on staging | QA and the release lead | 20 min |') +
      releaseRollback,
    changelog: 'Add the checklist; QA and the release lead run the smoke tests together',
  },
]

const incidentReview = `# Incident review: sign-in outage

**When:** 14 March, 09:12–09:47 UTC · **Impact:** nobody could sign in for 35 minutes.

## What happened

A certificate on the identity provider expired. The alert fired, but it went to a channel nobody
watches on Mondays.

## What we change

1. Certificates renew 30 days ahead, and the renewal is tested.
2. Alerts of severity 1 page the on-call person directly.
`

/** The other types, one artifact each: what a team keeps beside its documents. */
const otherTypes = [
  {
    type: 'json',
    slug: 'service-config',
    title: 'Service configuration',
    description: 'Production settings of the API service.',
    content: `{
  "service": "api",
  "replicas": 3,
  "database": { "pool": 20, "statementTimeoutMs": 5000 },
  "features": ["audit-trail", "share-links"],
  "maintenance": false
}
`,
  },
  {
    type: 'yaml',
    slug: 'ci-pipeline',
    title: 'CI pipeline',
    description: 'What runs on every push.',
    content: `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pnpm install --frozen-lockfile
      - run: pnpm test
`,
  },
  {
    type: 'txt',
    slug: 'weekly-sync',
    title: 'Weekly sync notes',
    description: '',
    content: `Weekly sync, Tuesday

Present: Ana, Bo, Chen
- Release 2.4 goes out Thursday.
- Bo takes on-call from Friday.
- Next sync: same time next week.
`,
  },
  {
    type: 'csv',
    slug: 'on-call-rota',
    title: 'On-call rota',
    description: 'Who is on call, week by week.',
    content: `Week,Primary,Secondary,Notes
12,Ana,Bo,
13,Bo,Chen,Release 2.4
14,Chen,Ana,Public holiday on Friday
15,Ana,Chen,
`,
  },
  {
    type: 'html',
    slug: 'weekly-report',
    title: 'Weekly service report',
    description: 'Availability, latency and incidents of week 14, as the reporting agent published it.',
    content: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Weekly service report</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; padding: 24px; color: #1c2330; background: #fff; }
  h1 { font-size: 22px; margin: 0 0 4px; }
  .sub { color: #5b6577; margin: 0 0 20px; }
  .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin-bottom: 20px; }
  .card { border: 1px solid #e2e6ec; border-radius: 10px; padding: 12px 14px; }
  .card b { display: block; font-size: 24px; }
  .card span { color: #5b6577; font-size: 13px; }
  .ok b { color: #1a7f37; } .warn b { color: #9a6700; }
  table { border-collapse: collapse; width: 100%; font-size: 14px; }
  th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid #e2e6ec; }
  td.bar { width: 40%; } td.bar i { display: block; height: 10px; border-radius: 5px; background: #3b5bdb; }
</style>
</head>
<body>
<h1>Weekly service report</h1>
<p class="sub">Week 14 · generated by the reporting agent</p>
<div class="cards">
  <div class="card ok"><b>99.97%</b><span>Availability</span></div>
  <div class="card"><b>182 ms</b><span>p95 latency</span></div>
  <div class="card warn"><b>1</b><span>Incident</span></div>
  <div class="card"><b>14</b><span>Deploys</span></div>
</div>
<table>
  <thead><tr><th>Service</th><th>Requests</th><th>Share</th></tr></thead>
  <tbody id="rows"></tbody>
</table>
<script>
  const services = [['api', 1840000], ['web', 920000], ['search', 410000], ['webhooks', 96000]]
  const total = services.reduce((sum, [, n]) => sum + n, 0)
  document.getElementById('rows').innerHTML = services
    .map(([name, n]) => '<tr><td>' + name + '</td><td>' + n.toLocaleString('en') + '</td><td class="bar"><i style="width:' + Math.round((100 * n) / total) + '%"></i></td></tr>')
    .join('')
</script>
</body>
</html>
`,
  },
  {
    type: 'svg',
    slug: 'logo',
    title: 'Logo',
    description: 'The product mark, as a vector.',
    content: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
  <rect width="64" height="64" rx="14" fill="#3b5bdb"/>
  <text x="32" y="43" font-size="34" text-anchor="middle" fill="#fff" font-family="sans-serif">Q</text>
</svg>
`,
  },
  {
    type: 'mermaid',
    slug: 'deploy-flow',
    title: 'Deploy flow',
    description: 'From a merged pull request to production.',
    content: `graph LR
  PR[Pull request merged] --> CI[CI builds and tests]
  CI --> Staging[Deploy to staging]
  Staging --> Smoke{Smoke tests pass?}
  Smoke -- yes --> Prod[Deploy to production]
  Smoke -- no --> Fix[Fix and try again]
`,
  },
] as const

const architecture = `# Architecture

A request from a browser or an agent passes the load balancer, then one of the stateless processes;
everything they keep lives in PostgreSQL.

\`\`\`mermaid
flowchart LR
  Client[Browser or agent] --> LB[HAProxy]
  LB --> Web[Web processes]
  LB --> API[API processes]
  Web --> DB[(PostgreSQL)]
  API --> DB
\`\`\`

Rendered documents are served from their own origin, so nothing they run can reach the pages.
`

/** Builds the demo world on a running web app and API (a fresh database: the names are fixed). */
export async function seedDemo(site: TestWeb): Promise<Demo> {
  const owner = await userWithKey(site, DEMO_OWNER_EMAIL)
  const api = (method: string, path: string, body?: unknown) => restCall(site, owner.token, method, path, body)
  const ownerUsername = owner.username
  await api('POST', '/api/projects', {
    ownerUsername,
    slug: 'handbook',
    title: 'Team handbook',
    description: 'How we work: releases, on-call and incident reviews.',
    icon: '✎',
  })
  await api('POST', '/api/projects', {
    ownerUsername,
    slug: 'platform',
    title: 'Platform',
    description: 'Configuration and pipelines of the services we run.',
    icon: '⚙',
  })
  const create = async (body: Record<string, unknown>) => (await api('POST', '/api/artifacts', { ownerUsername, ...body })).id as string

  const [first, ...later] = releaseVersions
  const releaseId = await create({
    projectSlug: 'handbook',
    slug: 'release-process',
    type: 'md',
    title: 'Release process',
    description: 'How we ship a new version, from the release branch to production.',
    content: first?.content,
    changelog: first?.changelog,
    access: { publicView: true, publicEdit: false },
  })
  for (const [i, version] of later.entries())
    await api('POST', `/api/artifacts/${releaseId}/versions`, { ...version, expectedLatestVersion: i + 1 })

  const byType: Record<string, string> = {}
  for (const artifact of otherTypes) {
    await create({ projectSlug: 'platform', ...artifact, changelog: 'First version', access: { publicView: true, publicEdit: false } })
    byType[artifact.type] = `/${ownerUsername}/platform/${artifact.slug}`
  }

  await create({
    projectSlug: 'platform',
    slug: 'architecture',
    type: 'md',
    title: 'Architecture',
    description: 'How a request travels through the platform.',
    content: architecture,
    changelog: 'First version',
    access: { publicView: true, publicEdit: false },
  })

  const incidentId = await create({
    projectSlug: 'handbook',
    slug: 'incident-review',
    type: 'md',
    title: 'Incident review: sign-in outage',
    description: 'What went wrong on 14 March, and what we change.',
    content: incidentReview,
    changelog: 'Written after the review meeting',
    access: { publicView: false, publicEdit: false },
  })
  const link = async (role: 'viewer' | 'editor') =>
    `/s/${encodeURIComponent((await api('POST', `/api/artifacts/${incidentId}/share-links`, { role })).secret as string)}`

  // A team: the owner's workspace with a member and a pending invitation, another team's
  // invitation waiting for the owner, and an API key of the owner's for their CI.
  const team = await api('POST', '/api/workspaces', { slug: 'acme', name: 'Acme platform team' })
  const teamWorkspaceId = team.id as string
  const bo = await userWithKey(site, 'bo@example.com')
  const toBo = await api('POST', `/api/workspaces/${teamWorkspaceId}/invitations`, { email: 'bo@example.com', role: 'member' })
  await restCall(site, bo.token, 'POST', `/api/workspace-invitations/${toBo.id as string}/accept`)
  await api('POST', `/api/workspaces/${teamWorkspaceId}/invitations`, { email: 'chen@example.com', role: 'admin' })
  const dana = await userWithKey(site, 'dana@example.com')
  const guild = await restCall(site, dana.token, 'POST', '/api/workspaces', { slug: 'design-guild', name: 'Design guild' })
  await restCall(site, dana.token, 'POST', `/api/workspaces/${guild.id as string}/invitations`, { email: DEMO_OWNER_EMAIL, role: 'member' })
  await api('POST', '/api/api-keys', { name: 'CI publisher', scopes: ['artifacts:read', 'artifacts:create', 'artifacts:update'] })

  const registered = await fetch(`${site.url}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Release bot', redirect_uris: ['http://127.0.0.1/callback'] }),
  })
  if (registered.status !== 201) throw new Error(`OAuth client registration: ${registered.status}`)

  // Agents: one the owner connected (and that has worked since, and asks for more), one waiting for them, one for Bo.
  const agents = await demoAgents(site, { waiting: DEMO_OWNER_EMAIL, other: 'bo@example.com' })

  return {
    owner: { email: DEMO_OWNER_EMAIL, username: ownerUsername, token: owner.token },
    project: `/${ownerUsername}/handbook`,
    document: `/${ownerUsername}/handbook/release-process`,
    privateDocument: `/${ownerUsername}/handbook/incident-review`,
    diagramDocument: `/${ownerUsername}/platform/architecture`,
    byType: byType as Demo['byType'],
    viewerLink: await link('viewer'),
    editorLink: await link('editor'),
    oauthClientId: ((await registered.json()) as { client_id: string }).client_id,
    teamWorkspaceId,
    ...agents,
  }
}

/** Registers an agent called `name`, naming `email`, as an agent does; its claim token and code. */
async function registerAgent(site: TestWeb, email: string, scopes: readonly string[], name: string) {
  const response = await fetch(`${site.url}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'service_auth', login_hint: email, scopes, name }),
  })
  if (response.status !== 200) throw new Error(`agent registration: ${response.status}`)
  const body = (await response.json()) as { claim_token: string; claim: { user_code: string } }
  return { claimToken: body.claim_token, code: body.claim.user_code }
}

/** The owner connects an agent in their browser session (over HTTP), and the agent then uses its token once. */
async function demoAgents(site: TestWeb, people: { waiting: string; other: string }) {
  const connected = await registerAgent(site, people.waiting, ['artifacts:read', 'artifacts:create'], 'Release notes bot')
  const session = await signInOverHttp(site, people.waiting)
  const confirmed = await session.postForm('/agent/claim', { user_code: connected.code, _csrf: await session.csrf() })
  if (confirmed.status !== 200) throw new Error(`confirming the demo agent: ${confirmed.status}`)
  const token = await fetch(`${site.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:service:params:oauth:grant-type:claim_token', claim_token: connected.claimToken }),
  })
  const accessToken = ((await token.json()) as { access_token: string }).access_token
  await fetch(`${site.apiUrl}/api/profile/me`, { headers: { authorization: `Bearer ${accessToken}` } })
  // It then asks the owner for one more scope.
  const asked = await fetch(`${site.url}/agent/identity/scopes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scopes: 'artifacts:update' }),
  })
  if (asked.status !== 200) throw new Error(`the demo agent's scope request: ${asked.status}`)
  const stepUpCode = ((await asked.json()) as { claim: { user_code: string } }).claim.user_code
  const waiting = await registerAgent(site, people.waiting, ['artifacts:read', 'artifacts:update'], 'Weekly status bot')
  const other = await registerAgent(site, people.other, ['artifacts:read'], 'Research assistant')
  return { agentCode: waiting.code, othersAgentCode: other.code, stepUpCode }
}
