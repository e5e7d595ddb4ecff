/**
 * Search: the box in the header of every signed-in page, and the search page (its form and
 * filters, the hits with their passages and marked matches, the help and the empty state). Only
 * the shared variables of `stylesheet.ts`, so light and dark follow the system.
 */
export const searchStyles = `
/* A highlighter's yellow, dark enough at night; the marked words in the text colour, so they read on it inside a link too. */
:root { --mark: #ffec99; }
@media (prefers-color-scheme: dark) { :root { --mark: #5c4a00; } }
header.site .site-search { flex: 1 1 180px; max-width: 300px; min-width: 0; display: flex; position: relative; }
header.site .site-search input {
  width: 100%; min-height: 36px; padding: 0 38px 0 12px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--surface); color: var(--text); font: inherit; font-size: 14px;
}
header.site .site-search input::placeholder { color: var(--muted); opacity: 1; }
header.site .site-search-button {
  position: absolute; right: 3px; top: 3px; bottom: 3px; min-height: 0; width: 32px; padding: 0;
  border-radius: 6px; background: transparent; color: var(--muted);
}
header.site .site-search-button:hover { background: var(--bg); color: var(--text); }
input[type="search"]:focus-visible, select:focus-visible, input[type="checkbox"]:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
.search-head h1 { margin-bottom: 4px; }
.search-form { margin: 0 0 24px; }
.search-row { display: flex; gap: 8px; }
.search-row input {
  flex: 1 1 auto; min-width: 0; min-height: 46px; padding: 0 14px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--surface); color: var(--text); font: inherit; font-size: 17px;
}
.search-row button { flex: none; min-height: 46px; }
.search-form [aria-invalid="true"] { border-color: var(--danger); box-shadow: 0 0 0 1px var(--danger); }
.search-form .field-error { margin: 8px 0 0; }
.search-form .hint { color: var(--muted); font-size: 14px; margin: 6px 0 0; }
.search-form .hint code { font-size: 13px; padding: 1px 5px; white-space: nowrap; }
.search-filters { display: flex; flex-wrap: wrap; gap: 12px 16px; align-items: flex-end; border: 0; padding: 0; margin: 14px 0 0; }
.search-filter { flex: 1 1 160px; min-width: 0; }
.search-filter label { font-size: 13px; font-weight: 600; color: var(--muted); margin-bottom: 4px; }
.search-filter .field-error { margin: 0 0 4px; font-size: 13px; }
.search-filter input, .search-filter select {
  width: 100%; min-height: 38px; padding: 0 10px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--surface); color: var(--text); font: inherit; font-size: 14px;
}
.search-filter select { appearance: auto; }
.search-filter input::placeholder { color: var(--muted); opacity: .8; }
label.check.search-versions { flex: none; margin: 0; min-height: 38px; font-size: 14px; }
label.check.search-versions input { width: 18px; height: 18px; accent-color: var(--accent); }
.search-hits .listing-main { display: grid; gap: 2px; }
/* One width for every type (MERMAID is the longest), so the titles line up, as on the home. */
.search-hits .type-tag { min-width: 0; width: 76px; }
.search-hits .listing-meta .badge { font-size: 11px; }
.search-hits .listing-meta .search-version { background: color-mix(in srgb, var(--warn, #e67700) 18%, transparent); color: var(--text); }
.search-path { overflow-wrap: anywhere; }
.search-snippets { list-style: none; margin: 8px 0 0; padding: 0; display: grid; gap: 6px; }
.search-snippets li { display: flex; gap: 10px; align-items: baseline; font-size: 14px; color: var(--text); min-width: 0; }
.search-snippet-where { flex: none; min-width: 64px; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.search-snippet-text { min-width: 0; overflow-wrap: anywhere; }
mark { background: var(--mark); color: var(--text); border-radius: 3px; padding: 0 2px; }
.search-help h2 { margin-top: 0; }
.search-help > .muted { max-width: 62ch; }
.search-syntax { display: grid; grid-template-columns: max-content 1fr; gap: 10px 20px; margin: 16px 0 0; padding: 18px 20px; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); }
.search-syntax dt a { border-radius: 5px; }
.search-syntax dt a:focus-visible, .search-empty a:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
.search-syntax dt code { font-size: 14px; color: var(--accent); }
.search-syntax dd { margin: 0; color: var(--muted); }
.search-empty p { margin: 0 0 8px; overflow-wrap: anywhere; }
.search-empty ul { margin: 0; padding-left: 1.2em; color: var(--muted); display: grid; gap: 4px; }
.search-empty a { text-decoration: underline; text-underline-offset: 2px; }
.search-page .pager { justify-content: center; }
@media (max-width: 640px) {
  header.site .site-search { flex: 1 1 0; max-width: none; }
  .search-row button { padding: 0 14px; }
  /* Two filters a row, so the first results still show on the first screen. */
  .search-filters { gap: 10px 12px; }
  .search-filter { flex: 1 1 calc(50% - 6px); }
  label.check.search-versions { flex: 1 1 calc(50% - 6px); }
  .search-hits .type-tag { width: 62px; font-size: 11px; padding: 3px 4px; }
  .search-syntax { grid-template-columns: minmax(0, 1fr); gap: 2px; padding: 14px 16px; }
  .search-syntax dd { margin-bottom: 8px; }
  .search-snippets li { flex-direction: column; gap: 0; }
}
`
