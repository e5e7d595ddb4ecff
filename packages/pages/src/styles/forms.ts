/**
 * The owner's forms (new version, delete, settings and share links) and the controls on the
 * artifact and history pages. Only the shared variables of `stylesheet.ts`, plus a warning and a
 * success colour pair for light and dark.
 */
export const formStyles = `
.owner-page { --ok: #2b8a3e; --warn: #e67700; }
@media (prefers-color-scheme: dark) { .owner-page { --ok: #69db7c; --warn: #ffc078; } }
.owner-page .artifact-head h1 { font-size: 28px; }
/* Not a previewed document's own headings: they look as on the artifact page. */
.owner-page h2:where(:not(.document h2)) { font-size: 20px; margin: 0 0 12px; }
/* A link inside a sentence is told by more than its colour. */
.owner-page .lede a, .conflict p a, .hint a { text-decoration: underline; text-underline-offset: 2px; }
.owner-form { margin: 0; }
.owner-form .field, .owner-page > .field { margin: 0 0 20px; }
.owner-form .hint, .owner-page .hint, details.restore .hint { color: var(--muted); font-size: 14px; margin: -2px 0 8px; }
.owner-form label .optional, details.restore .optional { font-weight: 400; color: var(--muted); }
.owner-form textarea, .owner-form select, details.restore input[type="text"] {
  width: 100%; padding: 10px 12px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--surface); color: var(--text); font: inherit;
}
.owner-form input[type="text"] { background: var(--surface); }
.owner-form textarea { display: block; min-height: 16em; resize: vertical; font: 14px/1.55 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; tab-size: 4; }
.owner-form #viewerEmails { min-height: 7em; }
.owner-form select { min-height: 44px; appearance: auto; }
.owner-form textarea:disabled, .owner-form input:disabled { opacity: .65; cursor: not-allowed; }
.owner-form [aria-invalid="true"] { border-color: var(--danger); box-shadow: 0 0 0 1px var(--danger); }
textarea:focus-visible, select:focus-visible, summary:focus-visible, .owner-page a:focus-visible, .artifact-actions a:focus-visible {
  outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px;
}
.field-error { color: var(--danger); font-weight: 600; font-size: 14px; margin: 0 0 6px; overflow-wrap: anywhere; }
.error-summary { border: 2px solid var(--danger); border-radius: var(--radius); background: var(--surface); padding: 14px 18px; margin: 0 0 20px; }
.error-summary h2 { font-size: 17px; color: var(--danger); margin: 0 0 6px; }
.error-summary p, .error-summary ul { margin: 0; overflow-wrap: anywhere; }
.error-summary ul { padding-left: 20px; }
.error-summary a { color: var(--danger); text-decoration: underline; }
.notice.success { border-left-color: var(--ok, #2b8a3e); }
.notice.warning { border-left-color: var(--warn); }
.notice.warning h2 { font-size: 18px; margin: 0 0 6px; }
.notice.warning p, .notice.success p, .notice.danger-zone p { margin: 0 0 6px; }
.notice.warning p:last-child, .notice.success p:last-child, .notice.danger-zone p:last-child { margin-bottom: 0; }
.notice.danger-zone { border-left-color: var(--danger); }
button.danger { background: var(--danger); color: var(--accent-text); }
button.danger:hover { background: color-mix(in srgb, var(--danger) 85%, #000); }
button.secondary.danger { background: transparent; color: var(--danger); border-color: color-mix(in srgb, var(--danger) 45%, var(--line)); }
button.secondary.danger:hover { background: color-mix(in srgb, var(--danger) 10%, transparent); }
.artifact-actions a.danger { color: var(--danger); }
.owner-form .actions, .owner-page > .actions { margin-top: 8px; }
.conflict { margin: 0 0 24px; }
.conflict h3 { font-size: 16px; margin: 16px 0 10px; display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: baseline; }
.conflict h3 .meta { font-size: 14px; font-weight: 400; display: inline-flex; gap: 12px; }
.settings-section { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 20px 24px; margin: 0 0 20px; }
.settings-section > .muted { margin-top: -4px; }
fieldset.switches { border: 0; padding: 0; margin: 0 0 16px; }
fieldset.switches label.check { font-weight: 600; margin: 10px 0 2px; align-items: flex-start; }
fieldset.switches label.check input { width: 18px; height: 18px; margin-top: 3px; flex: none; accent-color: var(--accent); }
fieldset.switches .hint { margin: 0 0 6px 26px; }
.link-create fieldset { border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 16px 14px; margin: 0 0 16px; background: var(--bg); }
.link-create legend { font-weight: 600; padding: 0 6px; }
.link-fields { display: flex; flex-wrap: wrap; gap: 12px 16px; align-items: flex-end; }
.link-fields .field { flex: 1 1 200px; margin: 0; }
.link-create .hint { margin: 10px 0 0; }
.share-links { list-style: none; margin: 0; padding: 0; border: 1px solid var(--line); border-radius: var(--radius); }
.share-link { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between; padding: 12px 16px; border-top: 1px solid var(--line); }
.share-link:first-child { border-top: 0; }
.share-link form { margin: 0; }
.share-link-main { min-width: 0; flex: 1 1 260px; }
.share-link-title { margin: 0 0 2px; display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
.share-link .meta { display: flex; flex-wrap: wrap; gap: 2px 14px; margin: 0; color: var(--muted); font-size: 13px; }
.share-link.revoked, .share-link.expired { background: var(--bg); }
.share-link.revoked .share-link-title code, .share-link.expired .share-link-title code { text-decoration: line-through; color: var(--muted); }
.badge.role-editor { background: color-mix(in srgb, var(--warn, #e67700) 18%, transparent); color: var(--text); }
.badge.status-active { background: color-mix(in srgb, var(--ok, #2b8a3e) 18%, transparent); color: var(--text); }
.badge.status-revoked { background: color-mix(in srgb, var(--danger) 16%, transparent); color: var(--text); }
.copy-field { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 14px; }
details.restore { margin: 10px 0 0; border-top: 1px solid var(--line); padding-top: 8px; }
details.restore summary { cursor: pointer; font-size: 14px; font-weight: 600; color: var(--accent); width: fit-content; border-radius: 4px; }
details.restore form { margin: 10px 0 2px; display: grid; gap: 6px; max-width: 520px; }
details.restore label { margin: 0; font-size: 14px; }
details.restore input[type="text"] { min-height: 40px; background: var(--bg); }
details.restore .hint { margin: 0 0 4px; }
details.restore button { justify-self: start; }
@media (max-width: 640px) {
  .owner-page .artifact-head h1 { font-size: 23px; }
  .settings-section { padding: 16px 14px; }
  .owner-form textarea { min-height: 12em; }
  .owner-form .actions > *, .link-fields > button { flex: 1 1 100%; }
  .share-link form, .share-link form button { width: 100%; }
}
`
