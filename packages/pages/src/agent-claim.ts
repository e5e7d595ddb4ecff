import type { ClaimRegistration } from '@quire/agent-auth'
import type { Scope } from '@quire/core'
import { html, type SafeHtml } from '@quire/render'
import { csrfInput } from './csrf-input.ts'
import { layout, type Visitor } from './layout.ts'
import { scopeWords } from './oauth.ts'
import { webRoutes } from './web-routes.ts'

/** What the claim page says, one state per answer. */
export type ClaimPage =
  | { readonly kind: 'enter' }
  | { readonly kind: 'pending'; readonly agent: ClaimRegistration; readonly userCode: string }
  | { readonly kind: 'confirmed'; readonly agent: Pick<ClaimRegistration, 'id' | 'name' | 'scopes'> }
  | {
      readonly kind: 'step_up'
      readonly agent: ClaimRegistration
      readonly userCode: string
      readonly added: readonly Scope[]
      readonly held: readonly Scope[]
    }
  | { readonly kind: 'granted'; readonly agent: Pick<ClaimRegistration, 'id' | 'name' | 'scopes'>; readonly added: readonly Scope[] }
  | { readonly kind: 'claimed' }
  | { readonly kind: 'wrong_account' }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'locked'; readonly retryAfterSeconds: number }

/** The HTTP status of each state: the page is also an answer to whoever fetched it. */
export const claimPageStatus: Record<ClaimPage['kind'], number> = {
  enter: 200,
  pending: 200,
  confirmed: 200,
  step_up: 200,
  granted: 200,
  claimed: 200,
  wrong_account: 403,
  unknown: 404,
  expired: 410,
  locked: 429,
}

const typeWords = {
  service_auth: 'It registered with your email address as the person who will claim it.',
  anonymous: 'It registered anonymously and now asks to be connected to your account.',
} as const

function scopeList(scopes: readonly Scope[]): SafeHtml {
  return html`<ul class="scopes">${scopes.map((s) => html`<li><code>${s}</code>: ${scopeWords[s] ?? s}</li>`)}</ul>`
}

/** The form that asks for a code when the link came without one (RFC 8628's verification URI). */
function codeForm(value = ''): SafeHtml {
  return html`<form method="get" action="${webRoutes.agentClaim.path()}" class="claim-code">
    <label for="user_code">Code</label>
    <input type="text" id="user_code" name="user_code" value="${value}" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="BCDF-GHJK" required>
    <div class="actions"><button type="submit">Continue</button></div>
  </form>`
}

function body(page: ClaimPage, csrf: string): { title: string; content: SafeHtml } {
  switch (page.kind) {
    case 'enter':
      return {
        title: 'Connect an agent',
        content: html`<h1>Connect an agent</h1>
  <p>Enter the code your agent showed you. It has eight letters, like <code>BCDF-GHJK</code>.</p>
  ${codeForm()}`,
      }
    case 'pending': {
      const { agent } = page
      return {
        title: 'Connect this agent to your account?',
        content: html`<h1>Connect this agent to your account?</h1>
  <p>An AI agent, <strong class="agent-name">${agent.name}</strong>, asks to act for you in Quire. ${typeWords[agent.type]}</p>
  ${agent.description ? html`<p class="agent-description">It says: “${agent.description}”</p>` : null}
  <p class="notice">Confirm only if you started this agent and it shows you the code <strong class="user-code">${page.userCode}</strong>.</p>
  <p>Once connected, it will be able to:</p>
  ${scopeList(agent.scopes)}
  <p class="muted">Never more than you may do yourself. You can revoke it at any time in <a href="${webRoutes.agents.path()}">Settings → Agents</a>.</p>
  <dl class="facts">
    <dt>Agent</dt><dd>${agent.name} <code class="muted">${agent.id}</code></dd>
    <dt>Registered</dt><dd><time datetime="${agent.createdAt.toISOString()}">${agent.createdAt.toISOString().replace('T', ' ').slice(0, 16)} UTC</time></dd>
    <dt>Code expires</dt><dd><time datetime="${agent.codeExpiresAt.toISOString()}">${agent.codeExpiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC</time></dd>
  </dl>
  <form method="post" action="${webRoutes.agentClaim.path()}">
    <input type="hidden" name="user_code" value="${page.userCode}">
    ${csrfInput(csrf)}
    <div class="actions">
      <button type="submit">Connect agent</button>
      <a class="button secondary" href="${webRoutes.home.path()}">Cancel</a>
    </div>
  </form>`,
      }
    }
    case 'confirmed':
      return {
        title: 'Agent connected',
        content: html`<h1>Agent connected</h1>
  <p>The agent <strong class="agent-name">${page.agent.name}</strong> <code class="muted">${page.agent.id}</code> now acts for you. It picks up its token on its next check, within a few seconds.</p>
  <p>It may:</p>
  ${scopeList(page.agent.scopes)}
  <div class="actions"><a class="button" href="${webRoutes.agents.path()}">See your agents</a><a class="button secondary" href="${webRoutes.home.path()}">Home</a></div>`,
      }
    case 'step_up': {
      const { agent } = page
      return {
        title: `${agent.name} asks for more access`,
        content: html`<h1><strong class="agent-name">${agent.name}</strong> asks for more access</h1>
  <p>Your agent <strong>${agent.name}</strong> <code class="muted">${agent.id}</code> asks to do more for you in Quire.</p>
  <p class="notice">Confirm only if your agent asked for this and shows you the code <strong class="user-code">${page.userCode}</strong>.</p>
  <p>If you confirm, it will also be able to:</p>
  <div class="scopes-added">${scopeList(page.added)}</div>
  <p>It keeps what it may do already:</p>
  ${page.held.length > 0 ? scopeList(page.held) : html`<p class="muted">Nothing yet.</p>`}
  <p class="muted">Never more than you may do yourself. You can revoke it at any time in <a href="${webRoutes.agents.path()}">Settings → Agents</a>.</p>
  <dl class="facts">
    <dt>Code expires</dt><dd><time datetime="${agent.codeExpiresAt.toISOString()}">${agent.codeExpiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC</time></dd>
  </dl>
  <form method="post" action="${webRoutes.agentClaim.path()}">
    <input type="hidden" name="user_code" value="${page.userCode}">
    ${csrfInput(csrf)}
    <div class="actions">
      <button type="submit">Confirm</button>
      <a class="button secondary" href="${webRoutes.home.path()}">Cancel</a>
    </div>
  </form>`,
      }
    }
    case 'granted':
      return {
        title: 'More access granted',
        content: html`<h1>Done: ${page.agent.name} can now do more</h1>
  <p>Done: <strong class="agent-name">${page.agent.name}</strong> <code class="muted">${page.agent.id}</code> can now:</p>
  ${scopeList(page.added)}
  <p>Its next token carries this, within a few seconds. All it may do now:</p>
  ${scopeList(page.agent.scopes)}
  <div class="actions"><a class="button" href="${webRoutes.agents.path()}">See your agents</a><a class="button secondary" href="${webRoutes.home.path()}">Home</a></div>`,
      }
    case 'claimed':
      return {
        title: 'Already connected',
        content: html`<h1>This agent is already connected</h1>
  <p>The code was used: the agent is connected to an account. Your agents are listed in <a href="${webRoutes.agents.path()}">Settings → Agents</a>.</p>
  <div class="actions"><a class="button" href="${webRoutes.home.path()}">Home</a></div>`,
      }
    case 'wrong_account':
      return {
        title: 'This code is for another account',
        content: html`<h1>This code is for another account</h1>
  <p>The agent named someone else as the person who will claim it, so this account cannot. Nothing was changed.</p>
  <p>Sign out and sign in with the email address the agent was given, or ask the agent to register again with yours.</p>
  <div class="actions"><a class="button secondary" href="${webRoutes.home.path()}">Home</a></div>`,
      }
    case 'unknown':
      return {
        title: 'This code is not valid',
        content: html`<h1>This code is not valid</h1>
  <p>Check the code your agent showed you and enter it again. If it still fails, ask the agent for a new one.</p>
  ${codeForm()}`,
      }
    case 'expired':
      return {
        title: 'This code has expired',
        content: html`<h1>This code has expired</h1>
  <p>Codes work for ten minutes. Ask your agent for a new one: it gets one by asking Quire to start the claim again.</p>
  ${codeForm()}`,
      }
    case 'locked':
      return {
        title: 'Too many wrong codes',
        content: html`<h1>Too many wrong codes</h1>
  <p>This account entered too many codes that did not work. Try again in ${Math.ceil(page.retryAfterSeconds / 60)} minutes, with the code your agent shows.</p>
  <div class="actions"><a class="button secondary" href="${webRoutes.home.path()}">Home</a></div>`,
      }
  }
}

/** The claim page in the app's layout. It never shows the email address a registration names. */
export function claimPage(page: ClaimPage, visitor: Visitor, csrf: string): string {
  const { title, content } = body(page, csrf)
  const error = claimPageStatus[page.kind] >= 400 ? ' error' : ''
  return layout({ title, visitor }, html`<section class="card narrow claim${error}">${content}</section>`)
}
