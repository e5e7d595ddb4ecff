/**
 * The two homes: the signed-in one (new-work actions, recent artifacts, projects and workspaces,
 * the empty state) and the signed-out one (the example artifact, the ways in and their snippets).
 * Only the shared variables of `stylesheet.ts`, so light and dark follow the system.
 */
export const homeStyles = `
.home-head { display: flex; flex-wrap: wrap; align-items: flex-end; justify-content: space-between; gap: 16px 24px; margin: 8px 0 8px; }
.home-head h1 { margin: 0 0 4px; overflow-wrap: anywhere; }
.home-head p { margin: 0; }
.home-actions { display: flex; align-items: center; gap: 20px; }
.home-link { font-weight: 600; border-radius: 4px; }
.home-link:focus-visible, .listing-project:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
.listing-meta .listing-project { text-decoration: underline; text-underline-offset: 2px; text-decoration-color: color-mix(in srgb, var(--accent) 40%, transparent); border-radius: 4px; }
.home-recent-list .listing-meta .badge { font-size: 11px; }
/* One width for every type (MERMAID is the longest), so the titles line up. */
.home-recent-list .type-tag { min-width: 0; width: 76px; }
.home-columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 24px; align-items: start; }
.home-columns .listing.compact > li { padding: 10px 16px; }
.home-section-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 4px 12px; margin: 28px 0 8px; }
.home-section-head h2 { margin: 0; }
.home-example .home-section-head { justify-content: flex-start; margin-top: 0; }
.home-section-head .home-link { font-size: 14px; }
.home-empty p { margin: 0 0 14px; }
.home-start { margin-top: 20px; }
.home-start h2 { margin-top: 0; }
.home-steps { margin: 16px 0 0; padding-left: 1.4em; display: grid; gap: 8px; }
.home-steps li::marker { color: var(--accent); font-weight: 700; }
.home-hero .actions { margin-top: 20px; }
.home-hero .features { margin-bottom: 0; }
.home-example, .home-ways { margin-top: 40px; }
.home-example > .muted { margin-top: -2px; }
.home-ways > h2 { margin-top: 0; }
.example-badge { background: color-mix(in srgb, var(--accent) 14%, transparent); color: var(--text); border: 1px dashed color-mix(in srgb, var(--accent) 60%, transparent); }
.example-artifact { border: 1px dashed var(--line); border-radius: var(--radius); padding: 20px 20px 24px; background: color-mix(in srgb, var(--surface) 50%, var(--bg)); }
.example-artifact .artifact-head { margin: 0 0 16px; }
.example-artifact .crumbs { margin-bottom: 4px; }
.example-title { font-size: 26px; line-height: 1.25; margin: 0 0 8px; overflow-wrap: anywhere; }
.example-artifact .document { box-shadow: none; }
.ways { display: grid; gap: 16px; }
.way { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 4px 28px; align-items: start; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 24px; }
.way h3 { font-size: 17px; margin: 0 0 6px; }
.way-intro p { color: var(--muted); font-size: 15px; margin: 0; }
.way-body .actions { margin-top: 0; }
.way-body .notice { margin: 14px 0 0; font-size: 14px; }
.way-more { font-size: 14px; margin: 4px 0 0; color: var(--muted); }
.way-more a { text-decoration: underline; text-underline-offset: 2px; border-radius: 4px; }
.way-more a:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
.snippet { margin: 0 0 14px; min-width: 0; }
.snippet figcaption { color: var(--muted); font-size: 13px; margin-bottom: 4px; }
.snippet figcaption code { font-size: 12px; padding: 1px 4px; }
.snippet pre { margin: 0; background: var(--code); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; font-size: 13px; line-height: 1.5; white-space: pre-wrap; overflow-wrap: anywhere; }
/* One click selects the whole command or file, ready to copy (the pages run no script). */
.snippet pre code { background: none; padding: 0; font-size: inherit; user-select: all; }
@media (max-width: 760px) {
  .home-columns { grid-template-columns: minmax(0, 1fr); }
  .way { grid-template-columns: minmax(0, 1fr); padding: 18px 16px; }
  .way-intro { margin-bottom: 12px; }
}
@media (max-width: 640px) {
  .home-hero, .home-start { padding: 24px 18px; }
  .home-hero h1 { font-size: 25px; }
  .home-hero .lead { font-size: 17px; }
  .home-head { align-items: stretch; }
  .home-head > div:first-child { flex: 1 1 100%; }
  .home-actions { flex: 1; }
  .home-actions .button { flex: 1; }
  .home-recent-list .type-tag { width: 62px; font-size: 11px; padding: 3px 4px; }
  .home-example, .home-ways { margin-top: 32px; }
  .example-artifact { padding: 14px 12px 16px; }
  .example-title { font-size: 22px; }
}
`
