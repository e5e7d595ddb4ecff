import { oauthLifetimes } from '../domain/oauth-rules.ts'
import { type Caller, type Principal, type PrincipalUser, userOf } from '../domain/principal.ts'
import { newSecret, secretPrefixes } from '../domain/secrets.ts'
import type { OidcIdentity } from '../ports/sign-in.ts'
import { principalOf } from './access.ts'
import type { CoreDeps } from './deps.ts'
import { usernameCandidates } from './operator.ts'

const webVia = (credentialId: string | null) => ({ surface: 'web', credential: credentialId ? 'session' : null, credentialId }) as const

/**
 * A person signed in at the external provider: their Quire user (found by the provider's subject,
 * or by a verified email, or created with a personal workspace) and a fresh browser session. The
 * session secret goes into the cookie; Quire keeps only its SHA-256.
 */
export async function signInWithOidc(
  deps: CoreDeps,
  identity: OidcIdentity,
): Promise<{ readonly sessionSecret: string; readonly user: PrincipalUser; readonly expiresAt: Date }> {
  const at = deps.clock.now()
  const email = identity.email.trim().toLowerCase()
  const { user } = await deps.signIn.resolveOidcUser({
    identity: { ...identity, email },
    usernameCandidates: usernameCandidates(email),
    userId: deps.ids.next('usr'),
    workspaceId: deps.ids.next('ws'),
    at,
    audit: (created, personalWorkspaceId) => ({
      id: deps.ids.next('evt'),
      at,
      action: 'user.created',
      actor: { kind: 'user', id: created.id, label: created.username },
      via: webVia(null),
      workspaceId: personalWorkspaceId,
      artifactId: null,
      data: { userId: created.id, email: created.email, username: created.username, issuer: identity.issuer },
    }),
  })
  const secret = await newSecret(secretPrefixes.session)
  const expiresAt = new Date(at.getTime() + oauthLifetimes.sessionDays * 86_400_000)
  await deps.signIn.createSession({ id: deps.ids.next('ses'), userId: user.id, secretHash: secret.hash, expiresAt, at })
  return { sessionSecret: secret.secret, user, expiresAt }
}

/** Ends a browser session (idempotent). */
export async function signOut(deps: CoreDeps, sessionSecret: string): Promise<void> {
  await deps.signIn.endSession(await deps.sha256(sessionSecret), deps.clock.now())
}

/** The signed-in person behind a session cookie's secret, or null (unknown, ended, expired, or not a session). */
export async function sessionPrincipal(deps: CoreDeps, sessionSecret: string): Promise<Principal | null> {
  const credential = { secretHash: await deps.sha256(sessionSecret) }
  const caller: Caller = { credential, surface: 'web' }
  const record = await deps.credentials.find(credential)
  if (record?.kind !== 'session') return null
  const principal = principalOf(deps, caller, record)
  return principal.ok && userOf(principal.value) !== null ? principal.value : null
}
