import type { PrincipalUser } from '@quire/core'
import type { Artifact, Project, Workspace } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { accessBadges } from '../access-badges.ts'
import { type Listing, projectList, workspaceList } from '../browse.ts'
import { layout } from '../layout.ts'
import { artifactPath, projectPath, projectRef, webRoutes } from '../web-routes.ts'
import { type Addresses, cliWay, mcpWay } from './ways-in.ts'
import { changedWhen } from './when.ts'

/** What the signed-in home lists: the first page of each of the person's own listings. */
export interface HomeOverview {
  readonly workspaces: Listing<Workspace>
  readonly projects: Listing<Project>
  /** Their artifacts, most recently changed first. */
  readonly artifacts: Listing<Artifact>
}

export interface SignedInHomeView extends Addresses {
  readonly user: PrincipalUser
  readonly csrfToken: string
  /** The time the page is made at, for "5 minutes ago". */
  readonly now: Date
  /** Their workspaces, projects and recent artifacts; null when they could not be read. */
  readonly overview: HomeOverview | null
}

/** One row per artifact: type, title (the link), its project (a link), version, access, last change. */
function recentList(artifacts: readonly Artifact[], now: Date): SafeHtml {
  return html`<ul class="listing home-recent-list">
${artifacts.map(
  (a) => html`<li>
  <span class="type-tag" title="Type">${a.type}</span>
  <div class="listing-main">
    <a class="listing-title" href="${artifactPath(a)}">${a.title}</a>
    <p class="listing-meta"><a class="listing-project" href="${projectPath({ ownerUsername: a.ownerUsername, slug: a.projectSlug })}">${a.ownerUsername} / ${a.projectSlug}</a><span title="Latest version">v${a.latestVersion}</span>${accessBadges(a)}<span>Changed ${changedWhen(a.updatedAt, now)}</span></p>
  </div>
</li>
`,
)}</ul>`
}

/** The path of a new artifact's form, with the project chosen when there is only one to choose. */
function newArtifactPath(projects: readonly Project[]): string {
  const only = projects.length === 1 ? projects[0] : undefined
  return webRoutes.newArtifact.path({}, { project: only ? projectRef(only) : undefined })
}

/** Someone with no project yet: what a project is, and the first step. */
function startHere(user: PrincipalUser): SafeHtml {
  const example = projectPath({ ownerUsername: user.username, slug: 'notes' })
  return html`<section class="card home-start" aria-labelledby="start-heading">
  <h2 id="start-heading">Start with a project</h2>
  <p>A project holds related artifacts under one address, such as <code>${example}</code>. Every artifact lives in one.</p>
  <ol class="home-steps">
    <li><strong>Make a project</strong> in your namespace, <code>${user.username}</code>, or in a team workspace.</li>
    <li><strong>Write an artifact</strong> in it: Markdown, JSON, YAML, CSV, a diagram. Each change is a new version.</li>
    <li><strong>Share it</strong> as widely as you choose: keep it private, share it by email or a link, or make it public.</li>
  </ol>
  <div class="actions"><a class="button" href="${webRoutes.newProject.path()}">New project</a></div>
</section>`
}

/** For someone with nothing published yet: the same ways in as the signed-out home, without the sign-in. */
function fromTools(addresses: Addresses): SafeHtml {
  return html`<section class="home-ways" aria-labelledby="tools-heading">
  <h2 id="tools-heading">Or publish from an agent or a terminal</h2>
  <div class="ways">
${mcpWay(addresses)}
${cliWay(addresses)}
  </div>
</section>`
}

/** The lists: recent artifacts first (the work), then where it lives. */
function lists(overview: HomeOverview, now: Date): SafeHtml {
  const { artifacts, projects, workspaces } = overview
  return html`<section class="home-recent" aria-labelledby="recent-heading">
  <h2 id="recent-heading">Recently changed</h2>
  ${
    artifacts.items.length > 0
      ? recentList(artifacts.items, now)
      : html`<div class="empty home-empty">
    <p>No artifacts yet. Write your first one here, or publish it from an agent or the command line.</p>
    <a class="button" href="${newArtifactPath(projects.items)}">New artifact</a>
  </div>`
  }
</section>
<div class="home-columns">
  <section aria-labelledby="projects-heading">
    <div class="home-section-head">
      <h2 id="projects-heading">Your projects</h2>
    </div>
    ${projectList(projects.items, { showOwner: true, empty: 'No projects yet.' })}
  </section>
  <section aria-labelledby="workspaces-heading">
    <div class="home-section-head">
      <h2 id="workspaces-heading">Your workspaces</h2>
      <a class="home-link" href="${webRoutes.workspaces.path()}">Manage</a>
    </div>
    ${workspaceList(workspaces.items)}
  </section>
</div>`
}

/**
 * The front page for someone signed in: the way to start something new, then what they and their
 * agents changed lately and where it lives. Who they are is on `/settings` (the header links it).
 */
export function signedInHome(view: SignedInHomeView): string {
  const { user, overview } = view
  const fresh = overview !== null && overview.projects.items.length === 0 && overview.artifacts.items.length === 0
  const started = overview !== null && overview.artifacts.items.length > 0
  return layout(
    { title: 'Home', visitor: { email: user.email, username: user.username, csrfToken: view.csrfToken } },
    html`<header class="home-head">
  <div>
    <h1>Welcome, ${user.username}</h1>
    <p class="muted">${fresh ? 'Nothing here yet: start with a project, then write in it.' : 'What you and your agents changed lately, and where it lives.'}</p>
  </div>
  <div class="home-actions">
    <a class="button" href="${webRoutes.newArtifact.path()}">New artifact</a>
    <a class="home-link" href="${webRoutes.newProject.path()}">New project</a>
  </div>
</header>
${
  overview === null
    ? html`<p class="notice" role="status">Your projects and artifacts could not be listed just now. Reload the page to try again.</p>`
    : fresh
      ? startHere(user)
      : lists(overview, view.now)
}
${overview !== null && !started ? fromTools(view) : null}`,
  )
}
