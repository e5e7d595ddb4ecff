import { generateKeyPair, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { type AssertionClaims, newAssertionId, signAssertion, verifyAssertion } from '../src/assertion.ts'

const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256)
const otherKey = Uint8Array.from({ length: 32 }, (_, i) => (i * 53 + 7) % 256)
const issuer = 'https://quire.example'
const now = new Date('2026-03-01T12:00:00.000Z')
const inAnHour = new Date(now.getTime() + 3600_000)

const claims: AssertionClaims = {
  registrationId: 'agt_01jh0000000000000000000000',
  jti: newAssertionId(),
  registrationType: 'anonymous',
  stage: 'unclaimed',
  scopes: ['artifacts:read'],
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000)
const b64url = (text: string) => Buffer.from(text).toString('base64url')

/** A JWT signed with jose directly, to forge what Quire would never sign. */
async function forged(
  options: { alg?: string; typ?: string; payload?: Record<string, unknown>; signingKey?: Parameters<SignJWT['sign']>[0] } = {},
) {
  const payload = {
    iss: issuer,
    aud: issuer,
    sub: claims.registrationId,
    jti: claims.jti,
    iat: seconds(now),
    exp: seconds(inAnHour),
    scope: 'artifacts:read',
    registration_type: 'anonymous',
    stage: 'unclaimed',
    ...options.payload,
  }
  return new SignJWT(payload).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: options.typ ?? 'JWT' }).sign(options.signingKey ?? key)
}

describe('identity assertions', () => {
  it('have random 128-bit ids', () => {
    const id = newAssertionId()
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(Buffer.from(id, 'base64url').length).toBe(16)
    expect(new Set(Array.from({ length: 1000 }, newAssertionId)).size).toBe(1000)
  })

  it('round-trip: HS256, typ JWT, iss = aud = issuer, every claim', async () => {
    const { assertion, expiresAt } = await signAssertion(key, issuer, claims, { issuedAt: now, expiresAt: inAnHour })
    expect(expiresAt).toEqual(inAnHour)
    const [header, payload] = assertion
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')))
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(payload).toEqual({
      iss: issuer,
      aud: issuer,
      sub: claims.registrationId,
      jti: claims.jti,
      iat: seconds(now),
      exp: seconds(inAnHour),
      scope: 'artifacts:read',
      registration_type: 'anonymous',
      stage: 'unclaimed',
    })
    expect(await verifyAssertion(key, issuer, assertion, now)).toEqual({ ok: true, claims })
  })

  it('carry several scopes space-separated, and the claimed stage', async () => {
    const claimed: AssertionClaims = {
      ...claims,
      registrationType: 'service_auth',
      stage: 'claimed',
      scopes: ['artifacts:read', 'artifacts:update'],
    }
    const { assertion } = await signAssertion(key, issuer, claimed, { issuedAt: now, expiresAt: inAnHour })
    expect(await verifyAssertion(key, issuer, assertion, now)).toEqual({ ok: true, claims: claimed })
  })

  it('take their times from the caller, in whole seconds', async () => {
    const odd = new Date(now.getTime() + 1500)
    const { assertion, expiresAt } = await signAssertion(key, issuer, claims, {
      issuedAt: odd,
      expiresAt: new Date(inAnHour.getTime() + 999),
    })
    expect(expiresAt).toEqual(inAnHour)
    const payload = JSON.parse(Buffer.from(assertion.split('.')[1] as string, 'base64url').toString('utf8'))
    expect(payload.iat).toBe(seconds(now) + 1)
  })

  it('expire at exp, by the given clock', async () => {
    const { assertion } = await signAssertion(key, issuer, claims, { issuedAt: now, expiresAt: inAnHour })
    expect((await verifyAssertion(key, issuer, assertion, new Date(inAnHour.getTime() - 1000))).ok).toBe(true)
    expect(await verifyAssertion(key, issuer, assertion, inAnHour)).toEqual({ ok: false, reason: 'has expired' })
    expect(await verifyAssertion(key, issuer, assertion, new Date(inAnHour.getTime() + 86_400_000))).toEqual({
      ok: false,
      reason: 'has expired',
    })
  })

  it('refuse an altered signature, payload or key', async () => {
    const { assertion } = await signAssertion(key, issuer, claims, { issuedAt: now, expiresAt: inAnHour })
    const [h, p, s] = assertion.split('.') as [string, string, string]
    const flipped = `${s.slice(0, -2)}${s.endsWith('AA') ? 'BA' : 'AA'}`
    expect((await verifyAssertion(key, issuer, `${h}.${p}.${flipped}`, now)).ok).toBe(false)
    const widened = b64url(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), scope: 'artifacts:read artifacts:delete' }),
    )
    expect((await verifyAssertion(key, issuer, `${h}.${widened}.${s}`, now)).ok).toBe(false)
    expect((await verifyAssertion(otherKey, issuer, assertion, now)).ok).toBe(false)
  })

  it('refuse alg none', async () => {
    const header = b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))
    const { assertion } = await signAssertion(key, issuer, claims, { issuedAt: now, expiresAt: inAnHour })
    const payload = assertion.split('.')[1]
    expect(await verifyAssertion(key, issuer, `${header}.${payload}.`, now)).toEqual({ ok: false, reason: 'is not valid' })
  })

  it('refuse HS512 and HS384 even with the right key', async () => {
    expect((await verifyAssertion(key, issuer, await forged({ alg: 'HS512' }), now)).ok).toBe(false)
    expect((await verifyAssertion(key, issuer, await forged({ alg: 'HS384' }), now)).ok).toBe(false)
    expect((await verifyAssertion(key, issuer, await forged(), now)).ok).toBe(true)
  })

  it('refuse RS256, signed by any key pair', async () => {
    const { privateKey } = await generateKeyPair('RS256')
    expect((await verifyAssertion(key, issuer, await forged({ alg: 'RS256', signingKey: privateKey }), now)).ok).toBe(false)
    // An RS256 header over an HMAC signature (the algorithm-confusion attack).
    const good = await forged()
    const [, p, s] = good.split('.')
    expect((await verifyAssertion(key, issuer, `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${p}.${s}`, now)).ok).toBe(false)
  })

  it('refuse a wrong issuer or audience, or an audience list', async () => {
    expect((await verifyAssertion(key, issuer, await forged({ payload: { iss: 'https://evil.example' } }), now)).ok).toBe(false)
    expect((await verifyAssertion(key, issuer, await forged({ payload: { aud: 'https://evil.example' } }), now)).ok).toBe(false)
    expect((await verifyAssertion(key, issuer, await forged({ payload: { aud: [issuer, 'https://evil.example'] } }), now)).ok).toBe(false)
    expect((await verifyAssertion(key, `${issuer}/`, await forged(), now)).ok).toBe(false)
  })

  it('refuse another typ, and missing or malformed claims', async () => {
    expect((await verifyAssertion(key, issuer, await forged({ typ: 'at+jwt' }), now)).ok).toBe(false)
    for (const payload of [
      { jti: undefined },
      { sub: undefined },
      { exp: undefined },
      { iat: undefined },
      { sub: 42 },
      { scope: 'artifacts:read artifacts:everything' },
      { scope: ['artifacts:read'] },
      { stage: 'owner' },
      { registration_type: 'identity_assertion' },
    ]) {
      expect((await verifyAssertion(key, issuer, await forged({ payload }), now)).ok, JSON.stringify(payload)).toBe(false)
    }
  })

  it('refuse garbage without throwing', async () => {
    for (const junk of ['', 'not.a.jwt', 'a.b', '...', 'x'.repeat(5000), '\u0000', `${'eyJ'.repeat(10)}.e30.`]) {
      expect((await verifyAssertion(key, issuer, junk, now)).ok).toBe(false)
    }
  })
})
