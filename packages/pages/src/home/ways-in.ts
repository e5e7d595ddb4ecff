import { html, type SafeHtml } from '@quire/render'
import { webRoutes } from '../web-routes.ts'

/** Where this Quire answers: the web origin (MCP, sign-in) and the REST API, when the web app knows it. */
export interface Addresses {
  /** The web app's public origin (WEB_URL), from the route's options. */
  readonly webUrl: string
  /** The REST API's public address (API_URL); null when the web app was not told it. */
  readonly apiUrl: string | null
}

/** The MCP endpoint of this Quire, as a host is given it. */
export function mcpUrlOf(webUrl: string): string {
  return `${webUrl.replace(/\/+$/, '')}${webRoutes.mcp.path()}`
}

/** A command or a file to copy: a caption, then the text (one click selects all of it). */
function snippet(caption: SafeHtml | string, text: string): SafeHtml {
  return html`<figure class="snippet">
  <figcaption>${caption}</figcaption>
  <pre><code>${text}</code></pre>
</figure>`
}

/** One way in: what it is (beside the snippets on a wide screen, above them on a phone), then how. */
export function way(intro: SafeHtml, body: SafeHtml): SafeHtml {
  return html`<div class="way">
  <div class="way-intro">
${intro}
  </div>
  <div class="way-body">
${body}
  </div>
</div>`
}

/** Connecting an MCP host: the same commands and files as the README's "Connect an MCP host". */
export function mcpWay(addresses: Addresses): SafeHtml {
  const url = mcpUrlOf(addresses.webUrl)
  return way(
    html`<h3>Connect an MCP host</h3>
<p>Add this server to Claude Code, Cursor or VS Code. On its first call the host opens the Quire sign-in in your browser (OAuth 2.1); your agent then reads and publishes with your permissions, and the audit trail names it.</p>`,
    html`${snippet('Claude Code', `claude mcp add --transport http quire ${url}`)}
${snippet(html`Cursor, <code>~/.cursor/mcp.json</code>`, `{ "mcpServers": { "quire": { "url": "${url}" } } }`)}
${snippet(html`VS Code, <code>.vscode/mcp.json</code>`, `{ "servers": { "quire": { "type": "http", "url": "${url}" } } }`)}`,
  )
}

/** Installing the CLI and signing it in: the CLI README's first lines, with this Quire's API address. */
export function cliWay(addresses: Addresses): SafeHtml {
  const install = [
    'npm install -g @quire/cli',
    ...(addresses.apiUrl ? [`export AGENT_SERVICE_BASE_URL=${addresses.apiUrl}`] : []),
    'quire login',
  ]
  return way(
    html`<h3>Install the CLI</h3>
<p>Publish files from a terminal or a script. <code>quire login</code> signs in through the browser and keeps the token in your system's credential store.</p>`,
    html`${snippet('Install and sign in (Node 22 or newer)', install.join('\n'))}
${snippet('Publish a file', 'quire push --owner <you> --project-slug notes --file plan.md')}
${addresses.apiUrl ? html`<p class="way-more">Or call the REST API yourself: <a href="${addresses.apiUrl}/docs">API documentation</a>.</p>` : null}`,
  )
}
