/** What `redact` cuts out of anything the CLI prints: secret values, and nothing else. */
import { describe, expect, it } from 'vitest'
import { redact } from '../src/run/redact.ts'

describe('redact', () => {
  it("leaves the server's words alone, backticks and all", () => {
    for (const text of [
      'The bearer credential is not valid: it is unknown, expired or revoked.',
      'Sign in or send `Authorization: Bearer <token>`.',
      'A bearer token is required; see the Bearer scheme (RFC 6750).',
    ])
      expect(redact(text)).toBe(text)
  })

  it('replaces secrets by shape: Quire prefixes, JWTs, long opaque bearer values', () => {
    expect(redact('key qk_zhZwMZiRJBE_BbfneoqvtR0e3RGAd9xrAuC8LYqPbxw was refused')).toBe('key qk_[redacted] was refused')
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ3RfMSJ9.c2lnbmF0dXJlLWJ5dGVz'
    expect(redact(`token ${jwt} expired`)).toBe('token [redacted] expired')
    expect(redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789')).toBe('Authorization: Bearer [redacted]')
  })

  it('replaces the secrets this run was given, wherever they appear', () => {
    expect(redact('tried s3cr3t-value-xyz at /x?t=s3cr3t-value-xyz', ['s3cr3t-value-xyz'])).toBe('tried [redacted] at /x?t=[redacted]')
    // A short value is not a secret worth cutting words for.
    expect(redact('the key', ['key'])).toBe('the key')
  })
})
