import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { parseScopes, redirectUriMatches, redirectUriProblem, sameResource, scopes, sha256Base64Url } from '../src/index.ts'

describe('redirect URIs a client may register', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'http://127.0.0.1:6276/oauth/callback',
    'http://localhost:8787/callback',
    'http://[::1]/cb',
    'cursor://anysphere.cursor-mcp/oauth/callback',
    'com.example.app:/oauth2redirect',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull()
  })
  it.each([
    ['http://example.com/cb', /https/],
    ['https://example.com/cb#frag', /fragment/],
    ['http://127.0.0.1:6276/cb#f', /fragment/],
    ['http://localhost/cb#', /fragment/],
    ['cursor://anysphere.cursor-mcp/cb#f', /fragment/],
    ['javascript:alert(1)', /javascript/],
    ['data:text/html,hi', /data/],
    ['file:///etc/passwd', /file/],
    ['/relative/only', /absolute/],
  ])('refuses %s', (uri, why) => {
    expect(redirectUriProblem(uri)).toMatch(why)
  })
})

describe('matching a requested redirect URI', () => {
  const registered = ['https://app.example/cb', 'http://127.0.0.1/callback']
  it('is exact, except for the port of a loopback redirect', () => {
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback')).toBe(true)
    expect(redirectUriMatches(registered, 'https://app.example/cb/')).toBe(false)
    expect(redirectUriMatches(registered, 'https://app.example:444/cb')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/other')).toBe(false)
    expect(redirectUriMatches(registered, 'http://localhost:51234/callback')).toBe(false)
  })
  it('never takes a fragment (RFC 6749 §3.1.2), on a loopback redirect either, even an empty one', () => {
    for (const requested of [
      'https://app.example/cb#f',
      'https://app.example/cb#',
      'http://127.0.0.1/callback#f',
      'http://127.0.0.1:51234/callback#f',
      'http://127.0.0.1:51234/callback#',
    ])
      expect(redirectUriMatches(registered, requested), requested).toBe(false)
  })
  it('differs from the registered loopback redirect in nothing but the port', () => {
    expect(redirectUriMatches(registered, 'http://user:pw@127.0.0.1:51234/callback')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback?x=1')).toBe(false)
  })
})

describe('scopes and resources', () => {
  it('reads a scope parameter: all when empty, null when one is unknown', () => {
    expect(parseScopes(undefined)).toEqual([...scopes])
    expect(parseScopes('artifacts:read  artifacts:read artifacts:create')).toEqual(['artifacts:read', 'artifacts:create'])
    expect(parseScopes('artifacts:read admin')).toBeNull()
  })
  it('treats one trailing slash as the same resource', () => {
    expect(sameResource('https://api.example', 'https://api.example/')).toBe(true)
    expect(sameResource('https://api.example', 'https://api.example/mcp')).toBe(false)
  })
  it('computes S256 (RFC 7636) as node:crypto does, without padding', async () => {
    for (const verifier of ['dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW-gFWFAjcXk', 'x'.repeat(128), '~._-'.repeat(11)]) {
      const expected = createHash('sha256').update(verifier).digest('base64url')
      expect(await sha256Base64Url(verifier)).toBe(expected)
      expect(expected).not.toContain('=')
    }
  })
})
