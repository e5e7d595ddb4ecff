import type { AuditEventDraft } from '../domain/audit.ts'
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
    // A provider identity joined to an account that already existed: worth a line in the trail.
    linkAudit: (linked) => ({
      id: deps.ids.next('evt'),
      at,
      action: 'user.identity_linked',
      actor: { kind: 'user', id: linked.id, label: linked.username },
      via: webVia(null),
      workspaceId: null,
      artifactId: null,
      data: { issuer: identity.issuer, subject: identity.subject, email },
    }),
  })
  const secret = await newSecret(secretPrefixes.session)
  const expiresAt = new Date(at.getTime() + oauthLifetimes.sessionDays * 86_400_000)
  const id = deps.ids.next('ses')
  const audit = sessionAudit(deps, 'session.started', user, id, at, { issuer: identity.issuer, expiresAt: expiresAt.toISOString() })
  await deps.signIn.createSession({ id, userId: user.id, secretHash: secret.hash, expiresAt, at, audit })
  return { sessionSecret: secret.secret, user, expiresAt }
}

/** Session events are the person's, on their account's trail. */
function sessionAudit(
  deps: CoreDeps,
  action: 'session.started' | 'session.ended',
  user: PrincipalUser,
  sessionId: string,
  at: Date,
  data: Record<string, unknown> = {},
): AuditEventDraft {
  return {
    id: deps.ids.next('evt'),
    at,
    action,
    actor: { kind: 'user', id: user.id, label: user.username },
    via: webVia(sessionId),
    workspaceId: null,
    artifactId: null,
    data,
  }
}

/** Ends the browser session of this signed-in principal (idempotent: an ended one records nothing). */
export async function signOut(deps: CoreDeps, sessionSecret: string, principal: Principal): Promise<void> {
  const user = userOf(principal)
  if (user === null || principal.kind !== 'session') return
  const at = deps.clock.now()
  await deps.signIn.endSession(await deps.sha256(sessionSecret), at, sessionAudit(deps, 'session.ended', user, principal.credentialId, at))
}

/** The signed-in person behind a session cookie's secret, or null (unknown, ended, expired, or not a session). */
export async function sessionPrincipal(deps: CoreDeps, sessionSecret: string): Promise<Principal | null> {
  const credential = { secretHash: await deps.sha256(sessionSecret), sessionCookie: true } as const
  const caller: Caller = { credential, surface: 'web' }
  const record = await deps.credentials.find(credential)
  if (record?.kind !== 'session') return null
  const principal = principalOf(deps, caller, record)
  return principal.ok && userOf(principal.value) !== null ? principal.value : null
}
