import type { NamespaceOwner } from '@quire/core'
import type { Artifact, Project, Workspace } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { layout, type Visitor } from './layout.ts'
import { type NoticeKey, noticeBanner } from './owner/notices.ts'
import { artifactPath, ownerPath, projectPath, projectRef, webRoutes } from './web-routes.ts'

/** A page of a listing as the page shows it: its items and where the next page starts. */
export interface Listing<T> {
  readonly items: readonly T[]
  readonly nextCursor: string | null
}

/** A timestamp as a reader scans it in a list (UTC, to the minute), machine-readable in `datetime`. */
function when(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`
}

/** The public/private badge, the same words as on the artifact's page. */
function visibility(artifact: Artifact): SafeHtml {
  return artifact.access.publicView ? html`<span class="badge">Public</span>` : html`<span class="badge private">Private</span>`
}

/**
 * One row per artifact: type, title (the link), where it lives, latest version, when it changed,
 * public or private. Only artifacts a use-case returned for this viewer ever reach here.
 */
export function artifactList(artifacts: readonly Artifact[], options: { showProject: boolean; empty: string }): SafeHtml {
  if (artifacts.length === 0) return html`<p class="muted empty">${options.empty}</p>`
  return html`<ul class="listing">
${artifacts.map(
  (a) => html`<li>
  <span class="type-tag" title="Type">${a.type}</span>
  <div class="listing-main">
    <a class="listing-title" href="${artifactPath(a)}">${a.title}</a>
    <p class="listing-meta">${options.showProject ? html`<span>${a.ownerUsername} / ${a.projectSlug}</span>` : null}<span>Version ${a.latestVersion}</span><span>Updated ${when(a.updatedAt)}</span>${visibility(a)}</p>
  </div>
</li>
`,
)}</ul>`
}

/** One row per project: icon, title (the link), its path, description. */
export function projectList(projects: readonly Project[], options: { showOwner: boolean; empty: string }): SafeHtml {
  if (projects.length === 0) return html`<p class="muted empty">${options.empty}</p>`
  return html`<ul class="listing">
${projects.map(
  (p) => html`<li>
  <span class="icon" aria-hidden="true">${p.icon}</span>
  <div class="listing-main">
    <a class="listing-title" href="${projectPath(p)}">${p.title}</a>
    <p class="listing-meta"><span>${options.showOwner ? `${p.ownerUsername} / ${p.slug}` : p.slug}</span><span>Created ${when(p.createdAt)}</span></p>
    ${p.description ? html`<p class="listing-description">${p.description}</p>` : null}
  </div>
</li>
`,
)}</ul>`
}

/** One row per workspace: its name (the link to its namespace), kind and the viewer's role. */
export function workspaceList(workspaces: readonly Workspace[]): SafeHtml {
  if (workspaces.length === 0) return html`<p class="muted empty">You belong to no workspace yet.</p>`
  return html`<ul class="listing compact">
${workspaces.map(
  (w) => html`<li>
  <div class="listing-main">
    <a class="listing-title" href="${ownerPath(w.slug)}">${w.name}</a>
    <p class="listing-meta"><span>${w.slug}</span><span>${w.kind === 'personal' ? 'Personal' : 'Team'}</span><span class="badge">${w.role}</span></p>
  </div>
</li>
`,
)}</ul>`
}

/**
 * Links between pages of a listing. Cursors only go forward, so "back" is to the first page;
 * the browser's own back button goes one page back.
 */
export function pager(
  pageHref: (cursor: string | undefined) => string,
  current: string | undefined,
  nextCursor: string | null,
): SafeHtml | null {
  if (current === undefined && nextCursor === null) return null
  return html`<nav class="pager" aria-label="Pages">
  ${current !== undefined ? html`<a class="button secondary" href="${pageHref(undefined)}">First page</a>` : null}
  ${nextCursor !== null ? html`<a class="button secondary" href="${pageHref(nextCursor)}">Next page</a>` : null}
</nav>`
}

/** `/:owner`: for a member, the namespace's projects and recent artifacts; for anyone else, its public artifacts. */
export function ownerPage(view: {
  readonly owner: NamespaceOwner
  readonly projects: Listing<Project> | null
  readonly artifacts: Listing<Artifact>
  readonly cursor: string | undefined
  readonly visitor: Visitor | null
}): string {
  const { owner } = view
  const { member } = owner
  const title = member?.name ?? owner.slug
  return layout(
    { title, visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<section class="browse">
  <header class="browse-head">
    <p class="crumbs">${member ? (member.kind === 'personal' ? 'Personal workspace' : 'Team workspace') : 'Public artifacts'}</p>
    <h1>${title}</h1>
    <p class="meta"><span>/${owner.slug}</span>${member ? html`<span>Your role: <span class="badge">${member.role}</span></span>` : null}</p>
    ${member ? html`<div class="actions"><a class="button" href="${webRoutes.newProject.path({}, { owner: owner.slug })}">New project</a></div>` : null}
  </header>
  ${
    view.projects
      ? html`<h2>Projects</h2>
  ${projectList(view.projects.items, { showOwner: false, empty: 'No projects here yet.' })}
  ${pager((cursor) => webRoutes.owner.path({ owner: owner.slug }, { cursor }), view.cursor, view.projects.nextCursor)}
  <h2>Recently changed artifacts</h2>
  ${artifactList(view.artifacts.items, { showProject: true, empty: 'No artifacts here yet.' })}`
      : html`${artifactList(view.artifacts.items, { showProject: true, empty: 'No more public artifacts.' })}
  ${pager((cursor) => webRoutes.owner.path({ owner: owner.slug }, { cursor }), view.cursor, view.artifacts.nextCursor)}`
  }
</section>`,
  )
}

/** `/:owner/:project`: the project and its artifacts the viewer may see, newest first (a visitor: the public ones, under the project's slug). */
export function projectPage(view: {
  readonly owner: NamespaceOwner
  readonly project: Project | { readonly slug: string }
  readonly artifacts: Listing<Artifact>
  readonly cursor: string | undefined
  readonly visitor: Visitor | null
  /** What a form that led here did (`?notice=deleted` after deleting an artifact). */
  readonly notice?: NoticeKey | null
}): string {
  const { project, owner } = view
  const full = 'title' in project ? project : null
  const params = { owner: owner.slug, project: project.slug }
  return layout(
    { title: full?.title ?? `${owner.slug} / ${project.slug}`, visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<section class="browse">
  <header class="browse-head">
    <p class="crumbs"><a href="${ownerPath(owner.slug)}">${owner.slug}</a> / ${project.slug}</p>
    ${
      full
        ? html`<h1><span class="icon" aria-hidden="true">${full.icon}</span> ${full.title}</h1>
    ${full.description ? html`<p class="lede">${full.description}</p>` : null}`
        : html`<h1>${project.slug}</h1>
    <p class="lede">Public artifacts of this project.</p>`
    }
    ${
      owner.member
        ? html`<div class="actions"><a class="button" href="${webRoutes.newArtifact.path({}, { project: projectRef({ ownerUsername: owner.slug, slug: project.slug }) })}">New artifact</a></div>`
        : null
    }
  </header>
  ${noticeBanner(view.notice)}
  <h2>Artifacts</h2>
  ${artifactList(view.artifacts.items, { showProject: false, empty: 'No artifacts in this project yet.' })}
  ${pager((cursor) => webRoutes.project.path(params, { cursor }), view.cursor, view.artifacts.nextCursor)}
</section>`,
  )
}
