import { createHash } from 'node:crypto'
import { renderedStyles } from './rendered.ts'
import { accountStyles } from './styles/account.ts'
import { browseStyles } from './styles/browse.ts'
import { claimStyles } from './styles/claim.ts'
import { formStyles } from './styles/forms.ts'
import { historyStyles } from './styles/history.ts'
import { homeStyles } from './styles/home.ts'
import { previewStyles } from './styles/preview.ts'
import { publishStyles } from './styles/publish.ts'
import { searchStyles } from './styles/search.ts'

/** The one stylesheet of every page: system fonts, no external assets, light and dark. */
export const stylesheet = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --surface: #ffffff; --text: #1c2330; --muted: #5b6577; --line: #e2e6ec;
  --accent: #3b5bdb; --accent-text: #ffffff; --accent-hover: #2f4ac0; --danger: #c92a2a; --code: #eef1f6;
  --radius: 10px; --shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 4px 16px rgb(16 24 40 / 6%);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1218; --surface: #171b23; --text: #e6e9ef; --muted: #98a2b3; --line: #2a303b;
    --accent: #6b86ff; --accent-text: #0f1218; --accent-hover: #8aa0ff; --danger: #ff6b6b; --code: #222833;
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; }
body {
  min-height: 100vh; display: flex; flex-direction: column; background: var(--bg); color: var(--text);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); text-decoration: none; }
/* A link inside running text is underlined: its colour alone does not tell it from the words around it. */
.notice a, .crumbs a, .document a:not(.header-anchor) { text-decoration: underline; text-underline-offset: 2px; }
a:hover { text-decoration: underline; }
header.site { min-height: 82px; }
header.site, footer.site { width: 100%; max-width: 880px; margin: 0 auto; padding: 20px 24px; display: flex; align-items: center; gap: 16px; }
header.site .brand { font-weight: 700; font-size: 18px; letter-spacing: .2px; color: var(--text); display: flex; align-items: center; gap: 10px; }
header.site .brand .mark { width: 26px; height: 26px; border-radius: 7px; background: var(--accent); color: var(--accent-text); display: grid; place-items: center; font-size: 15px; }
header.site nav { margin-left: auto; display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 14px; }
header.site nav button, header.site nav a.button { white-space: nowrap; }
footer.site { margin-top: auto; color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); }
main { width: 100%; max-width: 880px; margin: 0 auto; padding: 8px 24px 48px; }
.card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 32px; }
.card.narrow { max-width: 440px; margin: 40px auto 0; }
h1 { font-size: 28px; line-height: 1.25; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 28px 0 8px; }
p { margin: 0 0 14px; }
.lead { font-size: 18px; color: var(--muted); }
.muted { color: var(--muted); }
.features { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 16px; margin: 28px 0 8px; padding: 0; list-style: none; }
.features li { border: 1px solid var(--line); border-radius: var(--radius); padding: 16px; background: var(--bg); }
.features strong { display: block; margin-bottom: 4px; }
.actions { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-top: 24px; }
.button, button {
  appearance: none; display: inline-flex; align-items: center; justify-content: center; gap: 8px; min-height: 42px; padding: 0 18px;
  border-radius: 8px; border: 1px solid transparent; background: var(--accent); color: var(--accent-text);
  font: inherit; font-weight: 600; cursor: pointer; text-decoration: none;
}
.button:hover, button:hover { background: var(--accent-hover); text-decoration: none; }
.button.secondary, button.secondary { background: transparent; color: var(--text); border-color: var(--line); }
.button.secondary:hover, button.secondary:hover { background: var(--bg); }
form.inline { display: inline; margin: 0; }
label { display: block; font-weight: 600; margin-bottom: 6px; }
label.check { font-weight: 400; margin: 12px 0 0; display: flex; gap: 8px; align-items: center; }
label.check input { margin: 0; }
input[type="email"], input[type="text"] {
  width: 100%; min-height: 44px; padding: 0 12px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--bg); color: var(--text); font: inherit;
}
input:focus-visible, .button:focus-visible, button:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 2px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 8px 20px; margin: 20px 0 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; font-weight: 600; word-break: break-all; }
code { background: var(--code); padding: 2px 6px; border-radius: 5px; font-size: 14px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 999px; background: var(--code); color: var(--muted); vertical-align: middle; }
.notice { border-left: 4px solid var(--accent); background: var(--bg); padding: 12px 16px; border-radius: 0 8px 8px 0; margin: 16px 0; }
.error h1 { color: var(--danger); }
.error .detail { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 14px; background: var(--code); padding: 10px 12px; border-radius: 8px; word-break: break-word; }
.artifact-head { margin: 8px 0 20px; }
.artifact-head .crumbs { color: var(--muted); font-size: 14px; margin-bottom: 6px; }
.artifact-head h1 { font-size: 32px; margin-bottom: 8px; overflow-wrap: anywhere; }
.artifact-head .lede { color: var(--muted); font-size: 17px; }
.artifact-head .meta { display: flex; flex-wrap: wrap; gap: 6px 16px; color: var(--muted); font-size: 14px; align-items: center; }
.badge.private { background: color-mix(in srgb, var(--accent) 14%, transparent); color: var(--text); }
.artifact-actions { display: flex; flex-wrap: wrap; gap: 8px 16px; font-size: 14px; font-weight: 600; }
.document { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 28px 32px; overflow-wrap: anywhere; }
.document-md { font-size: 17px; line-height: 1.7; }
.document-md > :first-child, .document-md > .markdown-heading:first-child > :first-child { margin-top: 0; }
.document h1, .document h2, .document h3, .document h4 { line-height: 1.3; margin: 1.6em 0 .5em; }
.document h1 { font-size: 1.75em; } .document h2 { font-size: 1.4em; border-bottom: 1px solid var(--line); padding-bottom: .25em; } .document h3 { font-size: 1.2em; }
.document p, .document ul, .document ol, .document blockquote, .document table, .document pre { margin: 0 0 1em; }
.document img { max-width: 100%; height: auto; }
.document blockquote { border-left: 4px solid var(--line); padding: 0 1em; color: var(--muted); }
.document hr { border: 0; border-top: 1px solid var(--line); margin: 2em 0; }
.document table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%; font-size: 15px; }
.document th, .document td { border: 1px solid var(--line); padding: 6px 12px; text-align: left; vertical-align: top; }
.document th { background: var(--bg); }
.document pre { background: var(--code); padding: 14px 16px; border-radius: 8px; font-size: 14px; line-height: 1.5; white-space: pre-wrap; overflow-wrap: anywhere; }
.document pre code { background: none; padding: 0; font-size: inherit; }
.document .task-list-container { list-style: none; padding-left: 1.2em; }
.document .task-list-item input { margin: 0 .45em 0 -1.2em; vertical-align: middle; }
.document .task-list-item label { display: inline; font-weight: inherit; margin: 0; }
.document .footnotes { font-size: 14px; color: var(--muted); }
.document .footnotes-sep { margin: 2em 0 1em; }
.document .markdown-heading { position: relative; display: flex; align-items: baseline; gap: .4em; }
.document .markdown-heading > :is(h1, h2, h3, h4, h5, h6) { flex: 1; }
.document .markdown-heading:has(> h2) { border-bottom: 1px solid var(--line); margin: 1.6em 0 .5em; }
.document .markdown-heading > h2 { border: 0; margin: 0 0 .25em; }
.document .header-anchor { opacity: 0; font-weight: 400; color: var(--muted); }
.document .markdown-heading:hover .header-anchor, .document .header-anchor:focus-visible { opacity: 1; }
.document pre.text, .document pre.mermaid { background: none; padding: 0; white-space: pre-wrap; font-size: 14px; }
.document-txt, .document-mermaid { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.document .render-note { color: var(--muted); font-size: 14px; margin-top: 12px; }
.document > pre:only-child { margin: 0; }
.hljs-comment, .hljs-quote { color: #57606a; font-style: italic; }
.hljs-keyword, .hljs-selector-tag, .hljs-literal, .hljs-name, .hljs-tag { color: #cf222e; }
.hljs-string, .hljs-attr, .hljs-symbol, .hljs-bullet, .hljs-addition { color: #0a3069; }
.hljs-number, .hljs-attribute, .hljs-variable, .hljs-template-variable, .hljs-type { color: #0550ae; }
.hljs-title, .hljs-section, .hljs-built_in, .hljs-selector-id { color: #6f42c1; }
.hljs-deletion { color: #82071e; }
@media (prefers-color-scheme: dark) {
  .hljs-keyword, .hljs-selector-tag, .hljs-literal, .hljs-name, .hljs-tag { color: #ff7b72; }
  .hljs-string, .hljs-attr, .hljs-symbol, .hljs-bullet, .hljs-addition { color: #a5d6ff; }
  .hljs-number, .hljs-attribute, .hljs-variable, .hljs-template-variable, .hljs-type { color: #79c0ff; }
  .hljs-title, .hljs-section, .hljs-built_in, .hljs-selector-id { color: #d2a8ff; }
  .hljs-comment, .hljs-quote { color: #8b949e; }
}
@media (max-width: 640px) {
  main { padding: 4px 14px 32px; }
  header.site, footer.site { padding: 14px; }
  .document { padding: 18px 16px; border-radius: 8px; }
  .artifact-head h1 { font-size: 26px; }
  .document-md { font-size: 16px; }
}
${historyStyles}
${browseStyles}
${formStyles}
${publishStyles}
${accountStyles}
${claimStyles}
${previewStyles}
${renderedStyles}
${homeStyles}
${searchStyles}
`

/** Its file name, which changes with its content, so browsers may keep it forever (served as `webRoutes.stylesheet`). */
export const stylesheetFile = `quire.${createHash('sha256').update(stylesheet).digest('hex').slice(0, 12)}.css`
