/** Styles of the agent claim page, appended to the one stylesheet (its variables, so light and dark follow). */
export const claimStyles = `
.claim .user-code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 20px; letter-spacing: 0.08em; white-space: nowrap; }
.card.narrow.claim { max-width: 560px; }
.claim .notice { font-size: 15px; }
.claim p a { text-decoration: underline; text-underline-offset: 2px; }
.claim ul.scopes { padding-left: 20px; margin: 0 0 14px; }
.claim ul.scopes li { margin: 4px 0; }
.claim-code input[type="text"] { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 20px; letter-spacing: 0.12em; text-transform: uppercase; max-width: 240px; }
`
