import type { Agent } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { type Listing, pager } from '../browse.ts'
import { timeTag } from '../history.ts'
import type { Visitor } from '../layout.ts'
import { webRoutes } from '../web-routes.ts'
import { hiddenFields } from './forms.ts'
import { type NoticeKey, settingsPage } from './frame.ts'

/** Where an agent connects: the skill document it reads and the page where a person confirms its code. */
export interface AgentConnection {
  /** `{web_url}/auth.md`. */
  readonly skillUrl: string
  /** `{web_url}/agent/claim`. */
  readonly claimUrl: string
}

export interface AgentsView {
  readonly agents: Listing<Agent>
  readonly cursor: string | undefined
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
  /** Null when this Quire does not let agents register (auth.md is off). */
  readonly connection: AgentConnection | null
}

/** How each kind of agent came to be the person's, in words. */
const typeLabels: Record<Agent['type'], string> = {
  service_auth: 'Registered in your name',
  anonymous: 'Registered anonymously',
}

/** One agent: its name (its id beside it, small), how it registered, what it may do, its dates and status, and (while live) the way to revoke it. */
function agentItem(agent: Agent, csrfToken: string): SafeHtml {
  const revoked = agent.revokedAt !== null
  return html`<li class="agent">
  <div class="listing-main">
    <p class="key-name"><strong class="agent-name">${agent.name}</strong> <code class="agent-id muted">${agent.id}</code> <span class="badge agent-type">${agent.type}</span> ${
      revoked ? html`<span class="badge status-revoked">revoked</span>` : html`<span class="badge status-active">active</span>`
    }</p>
    ${agent.description ? html`<p class="agent-description">${agent.description}</p>` : null}
    <p class="key-scopes">${agent.scopes.map((s) => html`<span class="badge">${s}</span> `)}</p>
    ${
      agent.scopeRequest
        ? html`<p class="agent-scope-request">Asks for more: ${agent.scopeRequest.scopes.map((s) => html`<span class="badge">${s}</span> `)}until ${timeTag(agent.scopeRequest.expiresAt)}. Confirm it with the link and the code the agent showed you, if you started it.</p>`
        : null
    }
    <p class="listing-meta">
      <span>${typeLabels[agent.type]}</span>
      <span>Created ${timeTag(agent.createdAt)}</span>
      <span>Claimed ${timeTag(agent.claimedAt)}</span>
      <span>Last used ${agent.lastUsedAt ? timeTag(agent.lastUsedAt) : 'never'}</span>
      ${agent.revokedAt ? html`<span>Revoked ${timeTag(agent.revokedAt)}</span>` : null}
    </p>
  </div>
  ${
    revoked
      ? null
      : html`<form class="inline row-action" method="post" action="${webRoutes.agentRevoke.path({ agentId: agent.id })}">
    ${hiddenFields(csrfToken)}
    <button type="submit" class="danger">Revoke<span class="sr-only"> agent ${agent.name} (${agent.id})</span></button>
  </form>`
  }
</li>`
}

/** What the page says when the person has no agent: how one gets connected, or that this Quire does not allow it. */
function emptyState(view: AgentsView): SafeHtml {
  if (view.cursor) return html`<p class="muted empty">No agents on this page.</p>`
  const { connection } = view
  if (connection === null)
    return html`<p class="muted empty">You have no agents. Agent registration is not enabled on this Quire: agents act for you with an API key instead.</p>`
  return html`<div class="empty agents-empty">
  <p class="muted">You have no agents yet.</p>
  <p>An agent connects itself: it reads <a href="${connection.skillUrl}"><code>${connection.skillUrl}</code></a>, registers, and shows you a code like <code>BCDF-GHJK</code>. You confirm that code, signed in with the email the agent named, at <a href="${connection.claimUrl}">${connection.claimUrl}</a>. It then appears here, and acts for you with the scopes it was given until you revoke it.</p>
</div>`
}

/** `/settings/agents`: the agents the person claimed, newest first, each revocable while live. */
export function agentsPage(view: AgentsView): string {
  return settingsPage(
    { title: 'Agents', section: 'agents', visitor: view.visitor, notice: view.notice },
    html`<section class="account-section" aria-labelledby="agents-heading">
  <h1 id="agents-heading">Agents</h1>
  <p class="muted">Agents you claimed act for you, never with more than you may, and only with the scopes shown. Revoking one stops every token it holds at once, and it cannot get new ones.</p>
  ${
    view.agents.items.length === 0
      ? emptyState(view)
      : html`<ul class="listing agents" aria-label="Your agents">
${view.agents.items.map((agent) => agentItem(agent, view.csrfToken))}</ul>`
  }
  ${pager((cursor) => webRoutes.agents.path({}, { cursor }), view.cursor, view.agents.nextCursor)}
</section>`,
  )
}
