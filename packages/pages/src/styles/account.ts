/**
 * Styles of the account pages (profile, keys, agents, workspaces, invitations, audit trails) and the
 * header's account link, appended to the one stylesheet. Every rule is scoped to `.account` (the
 * root of those pages), so the other areas' generic names (`.field`, `button.danger`, …) and
 * these never change each other's look. Only the stylesheet's variables: light and dark follow
 * `prefers-color-scheme`.
 */
export const accountStyles = `
header.site .account-link { color: var(--text); border-radius: 4px; }
header.site .account-link:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
header.site button.compact { min-height: 34px; padding: 0 12px; font-size: 14px; }
.account { display: grid; grid-template-columns: minmax(0, 1fr); gap: 20px; }
.account a:focus-visible, .account select:focus-visible, .account input:focus-visible, .account .table-scroll:focus-visible {
  outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px;
}
/* A link among words or facts is underlined: its colour alone does not tell it from them. */
.account-tools p a, .account-tools dd a { text-decoration: underline; text-underline-offset: 2px; }
.account-nav ul { list-style: none; margin: 0; padding: 4px; display: flex; flex-wrap: wrap; gap: 4px; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); }
.account-nav a { display: block; padding: 8px 14px; border-radius: 7px; color: var(--text); font-weight: 600; font-size: 15px; }
.account-nav a:hover { background: var(--bg); text-decoration: none; }
.account-nav a[aria-current="page"] { background: color-mix(in srgb, var(--accent) 14%, transparent); color: var(--text); }
.account .notice { margin: 0; }
.account .notice.warning { border-left-color: var(--danger); }
.account h1 { font-size: 26px; }
.account h2 { font-size: 18px; margin: 0 0 10px; }
.account h3 { font-size: 16px; margin: 0 0 8px; }
.account-card { padding: 24px 28px; }
.account-card > :last-child { margin-bottom: 0; }
.account dl.facts dd { word-break: normal; overflow-wrap: anywhere; }
.account-section > .muted { margin-bottom: 16px; }
.account-section .account-card { margin-top: 16px; }
.account-head .crumbs { color: var(--muted); font-size: 14px; margin-bottom: 6px; overflow-wrap: anywhere; }
.account-head h1 { overflow-wrap: anywhere; }
.account-head .meta { display: flex; flex-wrap: wrap; gap: 6px 16px; color: var(--muted); font-size: 14px; align-items: center; }
.account-links { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 14px; font-weight: 600; margin: 0; }
.account-form { display: grid; gap: 16px; max-width: 560px; }
.account .field { margin: 0; }
.account .field label, .account .field legend { display: block; font-weight: 600; margin-bottom: 4px; }
.account .field-hint { color: var(--muted); font-size: 14px; margin: 0 0 6px; }
.account .field-error { color: var(--danger); font-size: 14px; font-weight: 600; margin: 6px 0 0; overflow-wrap: anywhere; }
.account .field.invalid input, .account .field.invalid select { border-color: var(--danger); box-shadow: 0 0 0 1px var(--danger); }
.account .form-error { color: var(--danger); font-weight: 600; border-left: 4px solid var(--danger); background: var(--bg); padding: 10px 14px; border-radius: 0 8px 8px 0; margin: 0; overflow-wrap: anywhere; }
.account .form-actions { display: flex; gap: 12px; align-items: center; }
.account input[type="date"], .account select {
  width: 100%; min-height: 44px; padding: 0 12px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--bg); color: var(--text); font: inherit;
}
.account input[type="date"] { max-width: 14em; }
.account fieldset.choices { border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 16px 14px; }
.account fieldset.choices legend { padding: 0 6px; margin: 0; }
.account fieldset.choices label.check { display: flex; gap: 10px; align-items: flex-start; margin: 10px 0 0; font-weight: 400; }
.account fieldset.choices label.check input { margin-top: 4px; flex: none; width: 16px; height: 16px; accent-color: var(--accent); }
.account fieldset.choices label.check code { font-size: 13px; }
.account fieldset.choices label.check .muted { display: block; font-size: 14px; margin-top: 2px; }
.account fieldset.choices.invalid { border-color: var(--danger); }
.account .listing > li .row-action { margin-left: auto; flex: none; align-self: center; }
.account .key-name { margin: 0; overflow-wrap: anywhere; display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; }
.account .key-scopes { margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px; }
.account .badge.warn, .account .badge.status-revoked, .account .badge.status-expired { background: color-mix(in srgb, var(--danger) 16%, transparent); color: var(--text); }
.account .badge.status-pending { background: color-mix(in srgb, var(--accent) 16%, transparent); color: var(--text); }
.account .badge.status-active { background: color-mix(in srgb, var(--accent) 10%, transparent); color: var(--text); }
.account .agents-empty p { margin: 0 0 8px; overflow-wrap: anywhere; }
.account .agents-empty p:last-child { margin-bottom: 0; }
.account .agent-scope-request { margin: 6px 0 2px; font-size: 14px; }
.account button.danger { background: transparent; color: var(--danger); border-color: color-mix(in srgb, var(--danger) 55%, transparent); min-height: 36px; padding: 0 14px; font-size: 14px; }
.account button.danger:hover { background: color-mix(in srgb, var(--danger) 10%, transparent); }
.account .row-action button:not(.danger) { min-height: 36px; padding: 0 16px; font-size: 14px; }
.account .secret-card input.secret {
  font: 15px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); border-color: var(--accent);
  min-height: 48px; letter-spacing: .2px;
}
.account .table-scroll { overflow-x: auto; max-width: 100%; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); }
.account .data-table { border-collapse: collapse; width: 100%; font-size: 14px; }
.account .data-table th, .account .data-table td { text-align: left; vertical-align: top; padding: 10px 14px; border-top: 1px solid var(--line); }
.account .data-table thead th { border-top: 0; color: var(--muted); font-weight: 600; font-size: 13px; background: var(--bg); white-space: nowrap; }
.account .data-table td { overflow-wrap: anywhere; }
.account .data-table code { font-size: 13px; }
.account .data-table code.small { font-size: 12px; background: none; padding: 0; color: var(--muted); }
.account .audit-table td:first-child, .account .audit-table td[data-label="Action"] { white-space: nowrap; overflow-wrap: normal; }
.account .audit-filter { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; margin: 0 0 16px; }
.account .audit-filter label { margin: 0; font-weight: 600; }
.account .audit-filter select { width: auto; min-width: 16em; flex: 0 1 auto; }
.account .audit-filter button { min-height: 44px; }
.account .audit-pager { justify-content: space-between; }
@media (max-width: 640px) {
  header.site:has(nav form) { flex-wrap: wrap; }
  header.site nav:has(form) { margin-left: 0; width: 100%; justify-content: space-between; }
  header.site nav > span { overflow-wrap: anywhere; min-width: 0; }
  .account-card { padding: 18px 16px; }
  /* An address reads whole under its name rather than broken beside it. */
  .account-tools dl.facts { grid-template-columns: minmax(0, 1fr); gap: 2px; }
  .account-tools dl.facts dd + dt { margin-top: 10px; }
  .account-nav a { white-space: nowrap; padding: 8px 10px; }
  .account h1 { font-size: 22px; }
  .account .listing > li { flex-wrap: wrap; }
  .account .listing > li .row-action { margin-left: 0; }
  .account .audit-filter select { min-width: 0; flex: 1 1 12em; }
  .account .data-table thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .account .data-table tr { display: block; border-top: 1px solid var(--line); padding: 8px 0; }
  .account .data-table tbody tr:first-child { border-top: 0; }
  .account .data-table td { display: block; position: relative; border: 0; padding: 3px 14px 3px calc(6.5em + 24px); }
  .account .data-table td::before { content: attr(data-label); position: absolute; left: 14px; width: 6.5em; color: var(--muted); font-weight: 600; font-size: 13px; }
  .account .audit-table td:first-child, .account .audit-table td[data-label="Action"] { white-space: normal; overflow-wrap: anywhere; }
}
`
