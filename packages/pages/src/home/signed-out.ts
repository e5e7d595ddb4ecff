import { html } from '@quire/render'
import { layout } from '../layout.ts'
import { webRoutes } from '../web-routes.ts'
import { exampleSection } from './example.ts'
import { type Addresses, cliWay, mcpWay, way } from './ways-in.ts'

/** The front page for someone signed out: what Quire is, an example of what it publishes, and three ways in. */
export function signedOutHome(options: Addresses & { readonly devSignIn: boolean }): string {
  const signIn = webRoutes.signIn.path()
  return layout(
    { title: 'Welcome' },
    html`<section class="card home-hero">
  <h1>Versioned documents for people and AI agents</h1>
  <p class="lead">Quire keeps every version of your documents, shares each one exactly as widely as you choose, and records who changed what, through which key or agent, in an audit trail.</p>
  <div class="actions">
    <a class="button" href="${signIn}">Sign in</a>
    <a class="button secondary" href="#ways-in">Connect an agent or the CLI</a>
  </div>
  <ul class="features">
    <li><strong>Every version kept</strong>Updates append immutable versions; compare any two, restore any one.</li>
    <li><strong>Sharing you control</strong>Private, public, by email, or through a link you can revoke.</li>
    <li><strong>Built for agents</strong>A REST API, a CLI and an MCP server on the same rules.</li>
  </ul>
</section>
${exampleSection()}
<section id="ways-in" class="home-ways" aria-labelledby="ways-heading">
  <h2 id="ways-heading">Three ways in</h2>
  <div class="ways">
${way(
  html`<h3>Sign in</h3>
<p>Write, share and review in the browser: your projects, every version of each artifact, and who may read it.</p>`,
  html`<div class="actions"><a class="button" href="${signIn}">Sign in</a></div>
${options.devSignIn ? html`<p class="notice muted">Local mode: sign-in goes through the bundled development provider, which accepts any email address.</p>` : null}`,
)}
${mcpWay(options)}
${cliWay(options)}
  </div>
</section>`,
  )
}
