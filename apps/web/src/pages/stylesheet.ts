import { createHash } from 'node:crypto'
import { webPaths } from '@quire/core'

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
a:hover { text-decoration: underline; }
header.site { min-height: 82px; }
header.site, footer.site { width: 100%; max-width: 880px; margin: 0 auto; padding: 20px 24px; display: flex; align-items: center; gap: 16px; }
header.site .brand { font-weight: 700; font-size: 18px; letter-spacing: .2px; color: var(--text); display: flex; align-items: center; gap: 10px; }
header.site .brand .mark { width: 26px; height: 26px; border-radius: 7px; background: var(--accent); color: var(--accent-text); display: grid; place-items: center; font-size: 15px; }
header.site nav { margin-left: auto; display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 14px; }
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
`

/** Served under a name that changes with its content, so browsers may keep it forever. */
export const stylesheetPath = `/${webPaths.assets}/quire.${createHash('sha256').update(stylesheet).digest('hex').slice(0, 12)}.css`
