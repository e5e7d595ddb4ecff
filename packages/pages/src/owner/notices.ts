import { html, type SafeHtml } from '@quire/render'

/**
 * What a page says after a form succeeded. The redirect names a key (`?notice=saved`), never a
 * sentence: a page shows only these fixed words, so nothing typed into a URL reaches the page.
 */
const sentences = {
  published: 'Published: this is version 1. Share it from Settings, or add versions with Edit.',
  'project-created': 'Project created. Publish its first artifact with New artifact.',
  saved: 'Saved: your new version is now the latest.',
  restored: 'Restored: the old version’s content is now the latest version.',
  deleted: 'The artifact was deleted. It is gone for everyone, share links included; its versions and audit trail are kept.',
  'access-saved': 'Access settings saved.',
  'link-revoked': 'The share link was revoked: it no longer opens the artifact.',
} as const

export type NoticeKey = keyof typeof sentences

/** The notice a query names (`?notice=<key>`), or null for none or an unknown key. */
export function noticeOf(query: unknown): NoticeKey | null {
  const key = (query as { notice?: unknown } | undefined)?.notice
  return typeof key === 'string' && Object.hasOwn(sentences, key) ? (key as NoticeKey) : null
}

/** The notice as a status message (announced by screen readers, not focused). */
export function noticeBanner(key: NoticeKey | null | undefined): SafeHtml | null {
  return key ? html`<p class="notice success" role="status">${sentences[key]}</p>` : null
}
