/**
 * The owner, project and home listings, and the share-link notice. Only the shared variables of
 * `stylesheet.ts` (`--surface`, `--line`, `--accent`, …), so light and dark follow the system.
 */
export const browseStyles = `
.browse-head { margin: 8px 0 8px; }
.browse-head .crumbs { color: var(--muted); font-size: 14px; margin-bottom: 6px; }
.browse-head h1 { font-size: 30px; margin-bottom: 8px; overflow-wrap: anywhere; display: flex; align-items: center; gap: 12px; }
.browse-head .lede { color: var(--muted); font-size: 17px; }
.browse-head .meta { display: flex; flex-wrap: wrap; gap: 6px 16px; color: var(--muted); font-size: 14px; align-items: center; }
.listing { list-style: none; margin: 0; padding: 0; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); }
.listing > li { display: flex; gap: 14px; align-items: flex-start; padding: 14px 18px; border-top: 1px solid var(--line); }
.listing > li:first-child { border-top: 0; }
.listing-main { min-width: 0; flex: 1; }
.listing-title { font-weight: 600; font-size: 16px; overflow-wrap: anywhere; border-radius: 4px; }
.listing-title:focus-visible, .pager a:focus-visible, .crumbs a:focus-visible, .notice a:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
.listing-meta { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 2px 0 0; color: var(--muted); font-size: 13px; align-items: center; }
.listing-description { margin: 4px 0 0; color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }
.listing .icon, .browse-head .icon { flex: none; width: 34px; height: 34px; display: grid; place-items: center; border-radius: 8px; background: var(--bg); border: 1px solid var(--line); font-size: 18px; line-height: 1; }
.browse-head .icon { width: 40px; height: 40px; font-size: 22px; }
.type-tag { flex: none; min-width: 56px; text-align: center; padding: 3px 6px; margin-top: 1px; border-radius: 6px; background: var(--code); color: var(--muted); font: 600 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; text-transform: uppercase; }
.empty { padding: 18px; background: var(--surface); border: 1px dashed var(--line); border-radius: var(--radius); }
.pager { display: flex; gap: 12px; justify-content: flex-end; margin-top: 16px; }
.notice.shared p { margin: 0 0 6px; }
.notice.shared p:last-child { margin-bottom: 0; }
.notice.shared .editor-note { padding-top: 6px; border-top: 1px solid var(--line); margin-top: 8px; }
@media (max-width: 640px) {
  .browse-head h1 { font-size: 24px; }
  .listing > li { padding: 12px 14px; gap: 10px; }
  .type-tag { min-width: 44px; }
  .pager { justify-content: stretch; }
  .pager a { flex: 1; }
}
`
