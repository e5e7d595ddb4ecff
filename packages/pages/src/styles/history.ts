/**
 * Styles of the history and diff pages, appended to the one stylesheet. They use its variables,
 * so light and dark follow `prefers-color-scheme`; only the diff's own colours get a dark set.
 */
export const historyStyles = `
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.history a:focus-visible, .diff-page a:focus-visible, .diff-scroll:focus-visible, .compare input:focus-visible {
  outline: 3px solid color-mix(in srgb, var(--accent) 55%, transparent); outline-offset: 2px; border-radius: 4px;
}
.artifact-head .crumbs { overflow-wrap: anywhere; }
.compare { margin: 0 0 24px; }
.compare fieldset { border: 1px solid var(--line); border-radius: var(--radius); background: var(--surface); padding: 14px 18px 16px; margin: 0; }
.compare legend { font-weight: 600; padding: 0 6px; font-size: 15px; }
.compare-fields { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 12px 16px; }
.compare label { display: flex; flex-direction: column; gap: 4px; margin: 0; font-size: 14px; font-weight: 600; color: var(--muted); }
.compare input[type="number"] {
  width: 8.5em; min-height: 42px; padding: 0 10px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--bg); color: var(--text); font: inherit; font-weight: 400;
}
.versions { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.version { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 16px 20px; }
.version:target { border-color: var(--accent); }
.version-head { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; margin-bottom: 4px; }
.version-title { font-size: 17px; margin: 0; }
.badge.latest { background: color-mix(in srgb, var(--accent) 16%, transparent); color: var(--text); }
.badge.restored { background: var(--code); }
.version .changelog { margin: 0 0 6px; overflow-wrap: anywhere; white-space: pre-line; }
.version .changelog.none { color: var(--muted); font-style: italic; }
.version .meta { display: flex; flex-wrap: wrap; gap: 4px 16px; color: var(--muted); font-size: 14px; margin: 0 0 8px; }
.version .meta strong { color: var(--text); font-weight: 600; overflow-wrap: anywhere; }
.version-links { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 14px; font-weight: 600; margin: 0; }
.pager { display: flex; justify-content: space-between; gap: 16px; margin: 20px 0 0; font-weight: 600; }
.diff-page .artifact-head h1 { font-size: 26px; }
.stat { font-weight: 700; font-variant-numeric: tabular-nums; }
.stat .word { font-weight: 400; }
.stat.add { color: var(--diff-add-text); }
.stat.del { color: var(--diff-del-text); }
.diff-page, .history, .preview { --diff-add-bg: #e6ffec; --diff-add-ln: #ccffd8; --diff-add-text: #116329; --diff-del-bg: #ffebe9; --diff-del-ln: #ffd7d5; --diff-del-text: #a40e26; --diff-hunk-bg: #ddf4ff; }
@media (prefers-color-scheme: dark) {
  .diff-page, .history, .preview { --diff-add-bg: #12261e; --diff-add-ln: #1b4428; --diff-add-text: #7ee2a8; --diff-del-bg: #2d1517; --diff-del-ln: #542426; --diff-del-text: #ffa198; --diff-hunk-bg: #14233a; }
}
.diff-scroll { overflow-x: auto; max-width: 100%; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); margin: 0 0 24px; }
.diff-table { border-collapse: collapse; width: 100%; font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; tab-size: 4; }
.diff-table td { padding: 0 10px; vertical-align: top; }
.diff-table .ln { width: 1%; min-width: 3.2em; text-align: right; color: var(--muted); user-select: none; border-right: 1px solid var(--line); font-variant-numeric: tabular-nums; }
.diff-table .code { white-space: pre; padding-left: 24px; position: relative; }
.diff-table .code::before { position: absolute; left: 8px; user-select: none; }
.diff-table tr.add .code::before { content: "+"; content: "+" / ""; color: var(--diff-add-text); }
.diff-table tr.del .code::before { content: "−"; content: "−" / ""; color: var(--diff-del-text); }
.diff-table tr.add td { background: var(--diff-add-bg); }
.diff-table tr.add .ln { background: var(--diff-add-ln); color: var(--diff-add-text); }
.diff-table tr.del td { background: var(--diff-del-bg); }
.diff-table tr.del .ln { background: var(--diff-del-ln); color: var(--diff-del-text); }
.diff-table tr.hunk th { text-align: left; font-weight: 400; color: var(--muted); background: var(--diff-hunk-bg); padding: 4px 10px; }
.diff-table tbody + tbody tr.hunk th { border-top: 1px solid var(--line); }
.diff-table tr.note .code { color: var(--muted); font-style: italic; }
@media (max-width: 640px) {
  .version { padding: 14px 14px; }
  .diff-page .artifact-head h1 { font-size: 22px; }
  .diff-table { font-size: 12px; }
  .diff-table td { padding: 0 6px; }
  .diff-table .code { padding-left: 18px; }
  .diff-table .code::before { left: 5px; }
  .compare input[type="number"] { width: 7em; }
}
`
