/**
 * The pages alone, as the functions they are: data in, HTML out, no server. What the composed web
 * app shows in a browser is tested in apps/web/test; here, what every page relies on: where an
 * artifact's pages are, the CSRF field the sessions hook reads, and escaping in the frame.
 */

import { createHash } from 'node:crypto'
import type { Artifact } from '@quire/core/contract'
import { html } from '@quire/render'
import { describe, expect, it } from 'vitest'
import { artifactCrumbs, artifactPath, csrfField, errorPage, layout, ownerPaths, stylesheet, stylesheetPath } from '../src/index.ts'
import { csrfInput } from '../src/owner/parts.ts'

const names = { ownerUsername: 'ada', projectSlug: 'notes', slug: 'plan' }

describe('paths', () => {
  it("builds an artifact's path from its names, each one encoded", () => {
    expect(artifactPath(names)).toBe('/ada/notes/plan')
    expect(artifactPath({ ownerUsername: 'a b', projectSlug: 'c/d', slug: 'e?f' })).toBe('/a%20b/c%2Fd/e%3Ff')
  })

  it("puts every owner page and form under the artifact's path", () => {
    const paths = ownerPaths(names)
    expect(paths).toMatchObject({
      artifact: '/ada/notes/plan',
      history: '/ada/notes/plan/history',
      edit: '/ada/notes/plan/edit',
      restore: '/ada/notes/plan/restore',
      delete: '/ada/notes/plan/delete',
      settings: '/ada/notes/plan/settings',
      audit: '/ada/notes/plan/audit',
      access: '/ada/notes/plan/settings/access',
      shareLinks: '/ada/notes/plan/settings/share-links',
    })
    expect(paths.revoke('shl_1/2')).toBe('/ada/notes/plan/settings/share-links/shl_1%2F2/revoke')
  })

  it('links the crumbs to the owner, the project and the artifact, with the title escaped', () => {
    const crumbs = artifactCrumbs({ ...names, title: '<script>alert(1)</script>' } as Artifact).text
    expect(crumbs).toContain('<a href="/ada">ada</a>')
    expect(crumbs).toContain('<a href="/ada/notes">notes</a>')
    expect(crumbs).toContain('<a href="/ada/notes/plan">&lt;script&gt;alert(1)&lt;/script&gt;</a>')
    expect(crumbs).not.toContain('<script>')
  })
})

describe('the CSRF field', () => {
  it("is the one every owner form sends, with the session's token", () => {
    expect(csrfInput('tok"en').text).toBe(`<input type="hidden" name="${csrfField}" value="tok&quot;en">`)
  })

  it("is the one the header's sign-out form sends", () => {
    const page = layout({ title: 'Home', visitor: { email: 'ada@example.com', username: 'ada', csrfToken: 'token-1' } }, html`<p>hi</p>`)
    expect(page).toContain(`<form class="inline" method="post" action="/logout"><input type="hidden" name="${csrfField}" value="token-1">`)
  })
})

describe('the frame', () => {
  it('offers to sign in when signed out, and names the visitor without a sign-out form when there is no token', () => {
    expect(layout({ title: 'Home' }, html``)).toContain('<a class="button secondary" href="/login">Sign in</a>')
    const signedIn = layout({ title: 'Home', visitor: { email: 'ada@example.com', username: 'ada' } }, html``)
    expect(signedIn).toContain('<strong>ada@example.com</strong>')
    expect(signedIn).not.toContain('action="/logout"')
  })

  it("links the stylesheet under a name made from its content's hash", () => {
    const hash = createHash('sha256').update(stylesheet).digest('hex').slice(0, 12)
    expect(stylesheetPath).toMatch(new RegExp(`/quire\\.${hash}\\.css$`))
    expect(layout({ title: 'Home' }, html``)).toContain(`<link rel="stylesheet" href="${stylesheetPath}">`)
  })

  it('escapes what an error page is given: title, message, detail and request id', () => {
    const page = errorPage({ title: 'A <b>', message: 'M <i>', detail: 'D "x"', requestId: '<id>', retrySignIn: true })
    expect(page).toContain('<title>A &lt;b&gt; · Quire</title>')
    expect(page).toContain('<p>M &lt;i&gt;</p>')
    expect(page).toContain('<p class="detail">D &quot;x&quot;</p>')
    expect(page).toContain('<code>&lt;id&gt;</code>')
    expect(page).toContain('<a class="button" href="/login">Try signing in again</a>')
  })
})
