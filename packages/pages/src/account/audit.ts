import type { AuditAction } from '@quire/core'
import type { Artifact, AuditEvent, Workspace } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { artifactCrumbs } from '../crumbs.ts'
import { actorKinds, timeTag } from '../history.ts'
import { layout, type Visitor } from '../layout.ts'
import { artifactParams, webRoutes, workspaceSettingsPath } from '../web-routes.ts'
import { settingsPage } from './frame.ts'

/** Whose trail a page shows: the account's, a workspace's or an artifact's. */
export type AuditSubject =
  | { readonly kind: 'account' }
  | { readonly kind: 'workspace'; readonly workspace: Workspace }
  | { readonly kind: 'artifact'; readonly artifact: Artifact }

/** What the page was asked for: an action to narrow to, and a page size. */
export interface AuditFilter {
  readonly action: string | null
  readonly limit: number | null
}

export interface AuditView {
  readonly subject: AuditSubject
  /** The actions this trail can hold, for the filter. */
  readonly actions: readonly string[]
  readonly filter: AuditFilter
  readonly events: readonly AuditEvent[]
  /** The operation's cursor for the older events, or null on the oldest page. */
  readonly nextCursor: string | null
  /** Whether this page was reached with a cursor (so there are newer events). */
  readonly paged: boolean
  readonly visitor: Visitor
}

/** A credential kind as a reader knows it. */
const credentialWords: Record<string, string> = {
  session: 'browser session',
  api_key: 'API key',
  oauth: 'OAuth token',
  agent: 'agent token',
  share_link: 'share link',
}

type Data = Readonly<Record<string, unknown>>

/** A datum as text: strings and numbers only (anything else is not meant for reading). */
function text(data: Data, key: string): string | null {
  const value = data[key]
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null
}

/** `a → b` from the data's `from` and `to`. */
const change = (d: Data) => (text(d, 'from') && text(d, 'to') ? `${text(d, 'from')} → ${text(d, 'to')}` : null)
const invitee = (d: Data) => (text(d, 'email') ? `${text(d, 'email')} as ${text(d, 'role') ?? 'member'}` : null)
const version = (d: Data) => (text(d, 'versionNumber') ? `version ${text(d, 'versionNumber')}` : null)
const shareLink = (d: Data) => (text(d, 'prefix') ? `link ${text(d, 'prefix')}… (${text(d, 'role') ?? 'viewer'})` : null)
const apiKey = (d: Data) => (text(d, 'name') ? `key “${text(d, 'name')}”` : text(d, 'apiKeyId'))
/** A webhook by where it delivers when the event says, else by its id. */
const webhook = (d: Data) => (text(d, 'url') ? `webhook to ${text(d, 'url')}` : text(d, 'webhookId') && `webhook ${text(d, 'webhookId')}`)
const client = (d: Data) => text(d, 'clientName') ?? text(d, 'clientId')
/** An agent by its id, with how it registered when the event says. */
const agent = (d: Data) => (text(d, 'agentId') ? `agent ${text(d, 'agentId')}${text(d, 'type') ? ` (${text(d, 'type')})` : ''}` : null)
/** A step-up's event: the agent and the scopes it asked for or was granted. */
const scopeChange =
  (verb: string) =>
  (d: Data): string | null => {
    const added = Array.isArray(d.added) ? d.added.filter((s) => typeof s === 'string') : []
    return text(d, 'agentId') ? `agent ${text(d, 'agentId')}${added.length > 0 ? `, ${verb} ${added.join(' ')}` : ''}` : null
  }

/** What each kind of event was done to, from its data (every action Quire records has an entry). */
const targets: Record<AuditAction, (data: Data) => string | null> = {
  'artifact.created': (d) => (text(d, 'slug') ? `${text(d, 'projectSlug')}/${text(d, 'slug')}` : null),
  'artifact.version_created': version,
  'artifact.restored': (d) =>
    [version(d), text(d, 'restoredFrom') && `from version ${text(d, 'restoredFrom')}`].filter(Boolean).join(' ') || null,
  'artifact.deleted': () => null,
  'artifact.access_changed': (d) =>
    Array.isArray(d.changed) ? `changed ${d.changed.filter((c) => typeof c === 'string').join(', ')}` : null,
  'share_link.created': shareLink,
  'share_link.revoked': shareLink,
  'project.created': (d) => (text(d, 'slug') ? `project ${text(d, 'slug')}` : null),
  'workspace.created': (d) => (text(d, 'slug') ? `workspace ${text(d, 'slug')}` : null),
  'workspace.plan_changed': change,
  'workspace.invitation_created': invitee,
  'workspace.invitation_revoked': invitee,
  'workspace.member_joined': (d) => (text(d, 'username') ? `${text(d, 'username')} as ${text(d, 'role') ?? 'member'}` : null),
  'api_key.created': apiKey,
  'api_key.revoked': apiKey,
  'webhook.created': webhook,
  'webhook.deleted': webhook,
  'webhook.secret_rotated': webhook,
  'user.created': (d) => text(d, 'email'),
  'user.identity_linked': (d) => text(d, 'email'),
  'profile.username_changed': change,
  'oauth.client_registered': client,
  'oauth.token_issued': client,
  'oauth.token_refreshed': client,
  'oauth.token_revoked': client,
  'oauth.grant_revoked': (d) => [client(d), text(d, 'reason')].filter(Boolean).join(', ') || null,
  'session.started': () => null,
  'session.ended': () => null,
  'agent.registered': agent,
  'agent.claim_requested': agent,
  'agent.claimed': agent,
  'agent.scopes_requested': scopeChange('asks for'),
  'agent.scopes_granted': scopeChange('granted'),
  'agent.token_issued': agent,
  'agent.revoked': agent,
  'token.revoked': agent,
  'credential.rejected': (d) =>
    text(d, 'credentialKind')
      ? `${credentialWords[text(d, 'credentialKind') ?? ''] ?? text(d, 'credentialKind')} (${text(d, 'reason') ?? 'refused'})`
      : null,
}

function targetOf(event: AuditEvent): string | null {
  const describe = (targets as Record<string, ((data: Data) => string | null) | undefined>)[event.action]
  return describe ? describe(event.data) : null
}

/** The trail's page (which the filter form and the links go to), showing `filter` from `cursor` on. */
function pageHref(subject: AuditSubject, filter: AuditFilter = { action: null, limit: null }, cursor?: string): string {
  const query = { action: filter.action || null, limit: filter.limit, cursor: cursor || null }
  switch (subject.kind) {
    case 'account':
      return webRoutes.accountAudit.path({}, query)
    case 'workspace':
      return webRoutes.workspaceAudit.path({ workspaceId: subject.workspace.id }, query)
    case 'artifact':
      return webRoutes.artifactAudit.path(artifactParams(subject.artifact), query)
  }
}

function eventRow(event: AuditEvent, subject: AuditSubject): SafeHtml {
  const target = targetOf(event)
  const credential = event.via.credential ? (credentialWords[event.via.credential] ?? event.via.credential) : 'no credential'
  const kind = (actorKinds as Record<string, string>)[event.actor.kind] ?? event.actor.kind
  // On an artifact's own trail, naming the artifact again says nothing.
  const artifact = subject.kind === 'artifact' ? null : event.artifactId
  return html`    <tr>
      <td data-label="Time">${timeTag(event.at)}</td>
      <td data-label="Action"><code>${event.action}</code></td>
      <td data-label="Actor"><strong>${event.actor.label}</strong> <span class="muted">(${kind})</span></td>
      <td data-label="Via">${credential} · ${event.via.surface}${event.via.credentialId ? html` <br><code class="small">${event.via.credentialId}</code>` : null}</td>
      <td data-label="Target">${target ?? (artifact ? null : html`<span class="muted">—</span>`)}${artifact ? html`${target ? html` <br>` : null}<code class="small">${artifact}</code>` : null}</td>
    </tr>
`
}

/** The GET form that narrows the trail to one action (and keeps the page size). */
function filterForm(view: AuditView): SafeHtml {
  const { filter } = view
  return html`<form class="audit-filter" method="get" action="${pageHref(view.subject)}">
  <label for="audit-action">Action</label>
  <select id="audit-action" name="action">
    <option value="">All actions</option>
${view.actions.map((a) => html`    <option value="${a}"${a === filter.action ? html` selected` : null}>${a}</option>\n`)}  </select>
  ${filter.limit !== null ? html`<input type="hidden" name="limit" value="${filter.limit}">` : null}
  <button type="submit" class="secondary">Filter</button>
  ${filter.action ? html`<a href="${pageHref(view.subject, { action: null, limit: filter.limit })}">Show all</a>` : null}
</form>`
}

function pager(view: AuditView): SafeHtml | null {
  if (!view.paged && view.nextCursor === null) return null
  return html`<nav class="pager audit-pager" aria-label="Pages of events">
  ${view.paged ? html`<a href="${pageHref(view.subject, view.filter)}">← Newest</a>` : html`<span></span>`}
  ${view.nextCursor ? html`<a href="${pageHref(view.subject, view.filter, view.nextCursor)}" rel="next">Older →</a>` : null}
</nav>`
}

function emptyText(view: AuditView): string {
  if (view.filter.action) return `No ${view.filter.action} events${view.paged ? ' among the older events' : ''}.`
  return view.paged ? 'No older events.' : 'No events yet.'
}

/** The heading and the line under it, per subject. */
function heading(subject: AuditSubject): { title: string; intro: SafeHtml } {
  switch (subject.kind) {
    case 'account':
      return {
        title: 'Audit trail',
        intro: html`What you did anywhere, and what happened in your personal workspace: keys, sign-ins, content. Newest first, kept as long as your plan says.`,
      }
    case 'workspace':
      return {
        title: `Audit trail of ${subject.workspace.name}`,
        intro: html`Every change to the workspace and its content, newest first, kept as long as its plan says. Members’ own keys and sign-ins stay on their accounts.`,
      }
    case 'artifact':
      return {
        title: `Audit trail of ${subject.artifact.title}`,
        intro: html`Every change to this artifact, its access and its share links, newest first.`,
      }
  }
}

/**
 * One template for the three audit trails (the account's, a workspace's, an artifact's): a filter
 * by action, a table of events (time, action, actor, credential and surface, target), and pages
 * by the operation's cursor. Under the settings navigation for the first two, under the
 * artifact's crumbs for the third.
 */
export function auditPage(view: AuditView): string {
  const { subject } = view
  const { title, intro } = heading(subject)
  const trail = html`<section class="audit" aria-labelledby="audit-heading">
  <header class="account-head">
    ${
      subject.kind === 'workspace'
        ? html`<p class="crumbs"><a href="${webRoutes.workspaces.path()}">Workspaces</a> / <a href="${workspaceSettingsPath(subject.workspace.id)}">${subject.workspace.slug}</a> / audit</p>`
        : subject.kind === 'artifact'
          ? artifactCrumbs(subject.artifact)
          : null
    }
    <h1 id="audit-heading">${title}</h1>
    <p class="muted">${intro}</p>
  </header>
  ${filterForm(view)}
  ${
    view.events.length === 0
      ? html`<p class="muted empty">${emptyText(view)}</p>`
      : html`<div class="table-scroll" role="region" aria-labelledby="audit-heading" tabindex="0">
<table class="data-table audit-table">
  <thead><tr><th scope="col">Time</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Via</th><th scope="col">Target</th></tr></thead>
  <tbody>
${view.events.map((event) => eventRow(event, subject))}  </tbody>
</table>
</div>`
  }
  ${pager(view)}
</section>`
  if (subject.kind !== 'artifact')
    return settingsPage({ title, section: subject.kind === 'account' ? 'audit' : 'workspaces', visitor: view.visitor }, trail)
  return layout(
    { title, visitor: view.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="account">
${trail}
</div>`,
  )
}
