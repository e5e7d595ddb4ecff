import { describe, expect, it } from 'vitest'
import { parseAgentAuthSettings } from '../src/index.ts'

const hexSecret = '11101b4cb5736e726bb27e8bfb20cb5aeb3be4c49d89a40310d5c5e44579cff5' // 32 bytes
const base64Secret = 'ERAbTLVzbnJrsn6L+yDLWus75MSdiaQDENXF5EV5z/U=' // 32 bytes, standard base64 with padding
const base64UrlSecret = 'ERAbTLVzbnJrsn6L-yDLWus75MSdiaQDENXF5EV5z_U' // the same, base64url without padding

const enabled = (over: Record<string, string | undefined> = {}) => ({ AUTH_MD_ENABLED: 'true', AUTH_MD_SIGNING_SECRET: hexSecret, ...over })

/** The one-line message a refused setting throws. */
function refusal(env: Record<string, string | undefined>): string {
  try {
    parseAgentAuthSettings(env)
  } catch (error) {
    expect(error).toBeInstanceOf(Error)
    const message = (error as Error).message
    expect(message).not.toMatch(/\n/)
    return message
  }
  throw new Error('expected the settings to be refused')
}

describe('parseAgentAuthSettings', () => {
  it('is null (the layer is off) when AUTH_MD_ENABLED is unset, empty or false, whatever else is set', () => {
    expect(parseAgentAuthSettings({})).toBeNull()
    expect(parseAgentAuthSettings({ AUTH_MD_ENABLED: '' })).toBeNull()
    expect(parseAgentAuthSettings({ AUTH_MD_ENABLED: 'false', AUTH_MD_SIGNING_SECRET: 'short' })).toBeNull()
    expect(parseAgentAuthSettings({ AUTH_MD_ALLOWED_SCOPES: 'nonsense' })).toBeNull()
  })

  it('refuses an AUTH_MD_ENABLED that is neither true nor false', () => {
    expect(refusal({ AUTH_MD_ENABLED: 'yes', AUTH_MD_SIGNING_SECRET: hexSecret })).toBe('AUTH_MD_ENABLED must be true or false; got "yes"')
    expect(refusal({ AUTH_MD_ENABLED: 'TRUE' })).toMatch(/^AUTH_MD_ENABLED /)
  })

  it('takes the defaults: read, create, update allowed; read before the claim', () => {
    const settings = parseAgentAuthSettings(enabled())
    expect(settings?.allowedScopes).toEqual(['artifacts:read', 'artifacts:create', 'artifacts:update'])
    expect(settings?.preClaimScopes).toEqual(['artifacts:read'])
    expect(settings?.signingKey).toBeInstanceOf(Uint8Array)
  })

  it('decodes the signing secret from hex, base64 and base64url', () => {
    for (const secret of [hexSecret, hexSecret.toUpperCase(), base64Secret, base64UrlSecret]) {
      const settings = parseAgentAuthSettings(enabled({ AUTH_MD_SIGNING_SECRET: secret }))
      expect(settings?.signingKey.length).toBe(32)
    }
    const fromHex = parseAgentAuthSettings(enabled())?.signingKey
    expect(fromHex?.[0]).toBe(0x11)
    expect(parseAgentAuthSettings(enabled({ AUTH_MD_SIGNING_SECRET: base64Secret }))?.signingKey).toEqual(fromHex)
    expect(parseAgentAuthSettings(enabled({ AUTH_MD_SIGNING_SECRET: base64Secret }))?.signingKey).toEqual(
      parseAgentAuthSettings(enabled({ AUTH_MD_SIGNING_SECRET: base64UrlSecret }))?.signingKey,
    )
    // Longer secrets are fine.
    expect(parseAgentAuthSettings(enabled({ AUTH_MD_SIGNING_SECRET: hexSecret + hexSecret }))?.signingKey.length).toBe(64)
  })

  it('refuses a missing signing secret', () => {
    expect(refusal({ AUTH_MD_ENABLED: 'true' })).toMatch(
      /^AUTH_MD_SIGNING_SECRET is required when AUTH_MD_ENABLED=true: at least 32 random bytes/,
    )
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: '   ' }))).toMatch(/^AUTH_MD_SIGNING_SECRET is required/)
  })

  it('refuses a signing secret under 32 bytes, saying how many it has', () => {
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: hexSecret.slice(0, 24) }))).toBe(
      'AUTH_MD_SIGNING_SECRET must be at least 32 random bytes (64 hex characters or 43 base64url); got 12 bytes',
    )
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: base64UrlSecret.slice(0, 42) }))).toMatch(/got 31 bytes$/)
  })

  it('refuses a signing secret that is neither hex nor base64', () => {
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: 'this is not a secret, it has spaces and commas!' }))).toMatch(
      /^AUTH_MD_SIGNING_SECRET must be hex or base64\/base64url encoded/,
    )
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: `${base64UrlSecret}AB` }))).toMatch(/^AUTH_MD_SIGNING_SECRET must be hex or base64/)
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: `${base64Secret}=` }))).toMatch(/^AUTH_MD_SIGNING_SECRET must be hex or base64/)
  })

  it('refuses a placeholder secret that is long enough but not random', () => {
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: '00'.repeat(32) }))).toMatch(
      /^AUTH_MD_SIGNING_SECRET does not look random \(1 distinct/,
    )
    expect(refusal(enabled({ AUTH_MD_SIGNING_SECRET: 'abab'.repeat(16) }))).toMatch(/^AUTH_MD_SIGNING_SECRET does not look random/)
  })

  it('reads the scope lists: trimmed, blanks dropped, duplicates merged, in the canonical order', () => {
    const settings = parseAgentAuthSettings(
      enabled({
        AUTH_MD_ALLOWED_SCOPES: ' artifacts:update, artifacts:read,,artifacts:read ,agents:manage',
        AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'artifacts:read',
      }),
    )
    expect(settings?.allowedScopes).toEqual(['artifacts:read', 'artifacts:update', 'agents:manage'])
  })

  it('refuses an unknown scope in AUTH_MD_ALLOWED_SCOPES, naming it', () => {
    expect(refusal(enabled({ AUTH_MD_ALLOWED_SCOPES: 'artifacts:read,artifacts:write' }))).toMatch(
      /^AUTH_MD_ALLOWED_SCOPES has "artifacts:write", which is not a scope \(comma-separated, from: artifacts:read, /,
    )
  })

  it('refuses an AUTH_MD_ALLOWED_SCOPES that lists nothing', () => {
    expect(refusal(enabled({ AUTH_MD_ALLOWED_SCOPES: ' , ' }))).toMatch(/^AUTH_MD_ALLOWED_SCOPES must list at least one scope/)
    expect(refusal(enabled({ AUTH_MD_ALLOWED_SCOPES: 'none' }))).toMatch(/^AUTH_MD_ALLOWED_SCOPES has "none", which is not a scope/)
  })

  it('turns anonymous registration off with `none` or an empty value', () => {
    expect(parseAgentAuthSettings(enabled({ AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'none' }))?.preClaimScopes).toEqual([])
    expect(parseAgentAuthSettings(enabled({ AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'NONE' }))?.preClaimScopes).toEqual([])
    expect(parseAgentAuthSettings(enabled({ AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: '' }))?.preClaimScopes).toEqual([])
  })

  it('refuses an unknown pre-claim scope, naming the setting', () => {
    expect(refusal(enabled({ AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'read' }))).toMatch(
      /^AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES has "read", which is not a scope .*, or `none`\)$/,
    )
  })

  it('refuses pre-claim scopes outside the allowed ones, the default included', () => {
    expect(refusal(enabled({ AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'artifacts:read,artifacts:delete' }))).toMatch(
      /^AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES has artifacts:delete, which AUTH_MD_ALLOWED_SCOPES \(artifacts:read,artifacts:create,artifacts:update\) does not allow/,
    )
    expect(refusal(enabled({ AUTH_MD_ALLOWED_SCOPES: 'artifacts:create' }))).toMatch(
      /^AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES \(its default\) has artifacts:read, which AUTH_MD_ALLOWED_SCOPES \(artifacts:create\) does not allow/,
    )
    expect(
      parseAgentAuthSettings(enabled({ AUTH_MD_ALLOWED_SCOPES: 'artifacts:create', AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES: 'none' })),
    ).not.toBeNull()
  })

  it('returns frozen settings', () => {
    const settings = parseAgentAuthSettings(enabled())
    expect(Object.isFrozen(settings)).toBe(true)
    expect(Object.isFrozen(settings?.allowedScopes)).toBe(true)
  })
})
