import { type AgentType, isScope, type Scope } from '@quire/core'
import { jwtVerify, SignJWT } from 'jose'
import { agentTypes } from './constants.ts'

/** Whether an assertion speaks for an agent before or after a person claimed it. */
export type AssertionStage = 'unclaimed' | 'claimed'

/** What Quire signs into an agent's identity assertion (besides `iss`, `aud`, `iat`, `exp`). */
export interface AssertionClaims {
  /** The registration id (`agt_…`): the JWT's `sub`. */
  readonly registrationId: string
  /** Random, 128 bits, base64url: only its SHA-256 is stored, and only the latest one of an agent works. */
  readonly jti: string
  readonly registrationType: AgentType
  readonly stage: AssertionStage
  readonly scopes: readonly Scope[]
}

export type VerifiedAssertion = { readonly ok: true; readonly claims: AssertionClaims } | { readonly ok: false; readonly reason: string }

const algorithm = 'HS256'
/** Far longer than any assertion Quire signs: longer input is refused before it is parsed. */
const maxAssertionLength = 4096
const stages: readonly string[] = ['unclaimed', 'claimed'] satisfies AssertionStage[]

/** A fresh assertion id: 128 random bits, base64url without padding. */
export function newAssertionId(): string {
  const bytes = new Uint8Array(16)
  crypto.getRandomValues(bytes)
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * Signs an identity assertion (HS256, header `typ: JWT`), `iss` = `aud` = the issuer. Times come
 * from the caller's clock, in whole seconds: `expiresAt` is what `exp` says.
 */
export async function signAssertion(
  key: Uint8Array,
  issuer: string,
  claims: AssertionClaims,
  times: { readonly issuedAt: Date; readonly expiresAt: Date },
): Promise<{ readonly assertion: string; readonly expiresAt: Date }> {
  const iat = Math.floor(times.issuedAt.getTime() / 1000)
  const exp = Math.floor(times.expiresAt.getTime() / 1000)
  const assertion = await new SignJWT({
    scope: claims.scopes.join(' '),
    registration_type: claims.registrationType,
    stage: claims.stage,
  })
    .setProtectedHeader({ alg: algorithm, typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(issuer)
    .setSubject(claims.registrationId)
    .setJti(claims.jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key)
  return { assertion, expiresAt: new Date(exp * 1000) }
}

/**
 * Verifies an assertion Quire signed: HS256 only (`none`, RS256, HS512… are refused), `typ: JWT`,
 * the signature, `iss` and `aud` equal to the issuer, `exp` after `now`, and every claim of the
 * right shape. Never throws: anything wrong is `{ ok: false, reason }`.
 */
export async function verifyAssertion(key: Uint8Array, issuer: string, assertion: string, now: Date): Promise<VerifiedAssertion> {
  if (typeof assertion !== 'string' || assertion.length === 0 || assertion.length > maxAssertionLength) {
    return { ok: false, reason: 'is not a JWT' }
  }
  let payload: Record<string, unknown>
  try {
    const verified = await jwtVerify(assertion, key, {
      algorithms: [algorithm],
      issuer,
      audience: issuer,
      typ: 'JWT',
      currentDate: now,
      requiredClaims: ['iss', 'aud', 'sub', 'jti', 'iat', 'exp'],
    })
    payload = verified.payload as Record<string, unknown>
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'ERR_JWT_INVALID'
    return { ok: false, reason: code === 'ERR_JWT_EXPIRED' ? 'has expired' : 'is not valid' }
  }
  const { sub, jti, aud, scope, registration_type: type, stage } = payload
  if (aud !== issuer) return { ok: false, reason: 'is not valid' }
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 100) return { ok: false, reason: 'is not valid' }
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 100) return { ok: false, reason: 'is not valid' }
  if (typeof type !== 'string' || !(agentTypes as readonly string[]).includes(type)) return { ok: false, reason: 'is not valid' }
  if (typeof stage !== 'string' || !stages.includes(stage)) return { ok: false, reason: 'is not valid' }
  if (typeof scope !== 'string') return { ok: false, reason: 'is not valid' }
  const names = scope.split(' ').filter(Boolean)
  if (!names.every(isScope)) return { ok: false, reason: 'is not valid' }
  return {
    ok: true,
    claims: { registrationId: sub, jti, registrationType: type as AgentType, stage: stage as AssertionStage, scopes: names as Scope[] },
  }
}
