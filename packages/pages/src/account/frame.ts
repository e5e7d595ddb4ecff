import { html, type SafeHtml } from '@quire/render'
import { layout, type Visitor } from '../layout.ts'
import { webRoutes } from '../web-routes.ts'

/** The sections of the settings pages, in the order the navigation shows them. */
export type SettingsSection = 'profile' | 'keys' | 'agents' | 'workspaces' | 'invitations' | 'audit'

const sections: readonly { readonly id: SettingsSection; readonly label: string; readonly href: string }[] = [
  { id: 'profile', label: 'Profile', href: webRoutes.profile.path() },
  { id: 'keys', label: 'API keys', href: webRoutes.apiKeys.path() },
  { id: 'agents', label: 'Agents', href: webRoutes.agents.path() },
  { id: 'workspaces', label: 'Workspaces', href: webRoutes.workspaces.path() },
  { id: 'invitations', label: 'Invitations', href: webRoutes.invitations.path() },
  { id: 'audit', label: 'Audit', href: webRoutes.accountAudit.path() },
]

/**
 * What a settings page says after a form went through (Post/Redirect/Get: the redirect names a
 * key). Fixed sentences: nothing a URL carries is ever shown, so a crafted link cannot put words
 * on the page.
 */
export const notices = {
  'username-changed': 'Your username is changed. Links under your old name no longer open.',
  'key-revoked': 'The API key is revoked: requests made with it are refused from now on.',
  'agent-revoked': 'The agent is revoked: its tokens are refused from now on, and it cannot get new ones.',
  'workspace-created': 'The workspace is created, and you are its owner.',
  'invitation-created': 'The invitation is made. The person accepts it by signing in with that email within 14 days.',
  'invitation-revoked': 'The invitation is revoked: it can no longer be accepted.',
  'invitation-accepted': 'You joined the workspace.',
} as const

export type NoticeKey = keyof typeof notices

/** The notice a `?notice=` names, or null for anything else. */
export function noticeKey(raw: unknown): NoticeKey | null {
  return typeof raw === 'string' && Object.hasOwn(notices, raw) ? (raw as NoticeKey) : null
}

export interface SettingsFrame {
  readonly title: string
  readonly section: SettingsSection
  readonly visitor: Visitor
  readonly notice?: NoticeKey | null
}

/** The settings navigation: one link per section, the current one marked for assistive technology too. */
function settingsNav(current: SettingsSection): SafeHtml {
  return html`<nav class="account-nav" aria-label="Settings">
  <ul>
${sections.map((s) => html`    <li><a href="${s.href}"${s.id === current ? html` aria-current="page"` : null}>${s.label}</a></li>\n`)}  </ul>
</nav>`
}

/** A settings page: the navigation, the notice a redirect named, the content. Never indexed. */
export function settingsPage(frame: SettingsFrame, content: SafeHtml): string {
  return layout(
    { title: frame.title, visitor: frame.visitor, head: html`<meta name="robots" content="noindex">` },
    html`<div class="account">
${settingsNav(frame.section)}
${frame.notice ? html`<p class="notice account-notice" role="status">${notices[frame.notice]}</p>` : null}
${content}
</div>`,
  )
}
