import type { Scope } from '../../contract/scopes.ts'
import { systemActor } from '../../domain/audit.ts'
import { sha256Base64Url } from '../../domain/hash.ts'
import { oauthLifetimes, parseScopes, pkceVerifierPattern, sameResource } from '../../domain/oauth-rules.ts'
import { newSecret, secretPrefixes } from '../../domain/secrets.ts'
import type { GrantAudit, TokenPairDraft } from '../../ports/sign-in.ts'
import type { CoreDeps } from '../deps.ts'
import { type OAuthResult, oauthFail, oauthOk } from './oauth-result.ts'

/** RFC 6749 §5.1. */
export interface TokenResponse {
  readonly access_token: string
  readonly token_type: 'Bearer'
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

type Form = Readonly<Record<string, string | undefined>>

interface Grant {
  readonly clientId: string
  readonly userId: string
  readonly scopes: readonly Scope[]
  readonly resource: string
  readonly familyId: string
}

type Secret = Awaited<ReturnType<typeof newSecret>>
interface PairSecrets {
  readonly access: Secret
  readonly refresh: Secret
}

async function newPairSecrets(): Promise<PairSecrets> {
  return { access: await newSecret(secretPrefixes.accessToken), refresh: await newSecret(secretPrefixes.refreshToken) }
}

/**
 * What the store keeps of a fresh pair: hashes, lifetimes, the grant. The access token carries
 * `grant.scopes`; the refresh token keeps `grantScopes`, the whole grant's (they differ when a
 * refresh narrowed the access token).
 */
function pairDraft(deps: CoreDeps, grant: Grant, secrets: PairSecrets, at: Date, grantScopes = grant.scopes): TokenPairDraft {
  return {
    ...grant,
    access: {
      id: deps.ids.next('tok'),
      secretHash: secrets.access.hash,
      displayPrefix: secrets.access.display,
      expiresAt: new Date(at.getTime() + oauthLifetimes.accessTokenSeconds * 1000),
    },
    refresh: {
      id: deps.ids.next('tok'),
      secretHash: secrets.refresh.hash,
      expiresAt: new Date(at.getTime() + oauthLifetimes.refreshTokenDays * 86_400_000),
      scopes: grantScopes,
    },
    at,
  }
}

/** What the client gets: the secrets, once. */
function tokenResponse(secrets: PairSecrets, scopes: readonly Scope[]): TokenResponse {
  return {
    access_token: secrets.access.secret,
    token_type: 'Bearer',
    expires_in: oauthLifetimes.accessTokenSeconds,
    refresh_token: secrets.refresh.secret,
    scope: scopes.join(' '),
  }
}

/**
 * The audit event of a change to a grant. The client acting for the person (refreshing, revoking)
 * acts as them; revoking a grant on a replayed code or refresh token is Quire's own doing. Events
 * land in the person's personal workspace, where their account-level trail reads them.
 */
function grantAudit(deps: CoreDeps, at: Date): GrantAudit {
  return ({ change, familyId, clientId, user }) => {
    const person = { kind: 'user', id: user.id, label: user.username } as const
    const base = { id: deps.ids.next('evt'), at, workspaceId: user.personalWorkspaceId, artifactId: null }
    switch (change.kind) {
      case 'refreshed':
        return {
          ...base,
          action: 'oauth.token_refreshed',
          actor: person,
          via: { surface: 'web', credential: 'oauth', credentialId: change.accessTokenId },
          data: { clientId, familyId },
        }
      case 'revoked_by_client':
        return {
          ...base,
          action: change.token === 'refresh' ? 'oauth.grant_revoked' : 'oauth.token_revoked',
          actor: person,
          via: { surface: 'web', credential: null, credentialId: null },
          data: { clientId, familyId, reason: 'revoked_by_client', token: change.token },
        }
      case 'reuse_detected':
        return {
          ...base,
          action: 'oauth.grant_revoked',
          actor: systemActor,
          via: { surface: 'web', credential: null, credentialId: null },
          data: { clientId, familyId, reason: change.presented === 'code' ? 'code_reused' : 'refresh_token_reused' },
        }
    }
  }
}

const unknownClient = () => oauthFail('invalid_client', 'No client is registered with this client_id.', 401)

async function exchangeCode(deps: CoreDeps, form: Form): Promise<OAuthResult<TokenResponse>> {
  const { client_id: clientId, code, redirect_uri: redirectUri, code_verifier: verifier } = form
  if (!clientId) return oauthFail('invalid_client', 'Public clients identify themselves with client_id.', 401)
  if (!code || !redirectUri || !verifier) return oauthFail('invalid_request', 'code, redirect_uri and code_verifier are required.')
  const client = await deps.oauth.findClient(clientId)
  if (client === null) return unknownClient()
  if (!pkceVerifierPattern.test(verifier)) return oauthFail('invalid_grant', 'The code_verifier does not match the code_challenge.')
  const at = deps.clock.now()
  const familyId = deps.ids.next('tok')
  const presented = { codeHash: await deps.sha256(code), clientId: client.id, redirectUri, codeChallenge: await sha256Base64Url(verifier) }
  const consumed = await deps.oauth.consumeCode({ presented, at, familyId, audit: grantAudit(deps, at) })
  if (!consumed.ok) {
    if (consumed.reason === 'mismatch') {
      const why = {
        client_id: 'The authorization code was issued to another client.',
        redirect_uri: 'redirect_uri differs from the one the code was issued for.',
        code_verifier: 'The code_verifier does not match the code_challenge.',
      }[consumed.field]
      return oauthFail('invalid_grant', why)
    }
    const why = { reused: 'was used before (the tokens issued for it are revoked)', unknown: 'is not valid', expired: 'has expired' }[
      consumed.reason
    ]
    return oauthFail('invalid_grant', `The authorization code ${why}.`)
  }
  const grant = consumed.code
  if (form.resource !== undefined && !sameResource(form.resource, grant.resource)) {
    return oauthFail('invalid_target', 'The resource differs from the one authorized.')
  }
  const profile = await deps.accounts.profile(grant.userId)
  if (profile === null) return oauthFail('invalid_grant', 'The account behind the code no longer exists.')
  const secrets = await newPairSecrets()
  const draft = pairDraft(
    deps,
    { clientId: client.id, userId: grant.userId, scopes: grant.scopes, resource: grant.resource, familyId },
    secrets,
    at,
  )
  await deps.oauth.issueTokens(draft, {
    id: deps.ids.next('evt'),
    at,
    action: 'oauth.token_issued',
    actor: { kind: 'user', id: profile.user.id, label: profile.user.username },
    via: { surface: 'web', credential: 'oauth', credentialId: draft.access.id },
    workspaceId: profile.personalWorkspaceId,
    artifactId: null,
    data: { clientId: client.id, clientName: client.name, scopes: grant.scopes, resource: grant.resource, familyId },
  })
  return oauthOk(tokenResponse(secrets, grant.scopes))
}

/** Thrown inside the rotation to roll it back: the presented token stays as it was. */
class ScopeWidening extends Error {}

async function refresh(deps: CoreDeps, form: Form): Promise<OAuthResult<TokenResponse>> {
  const { client_id: clientId, refresh_token: token } = form
  if (!clientId) return oauthFail('invalid_client', 'Public clients identify themselves with client_id.', 401)
  if (!token) return oauthFail('invalid_request', 'refresh_token is required.')
  if ((await deps.oauth.findClient(clientId)) === null) return unknownClient()
  const narrowed = form.scope === undefined ? null : parseScopes(form.scope)
  if (form.scope !== undefined && narrowed === null) return oauthFail('invalid_scope', 'The scope names an unknown scope.')
  const at = deps.clock.now()
  const secrets = await newPairSecrets()
  let granted: readonly Scope[] = []
  try {
    const outcome = await deps.oauth.rotateRefreshToken({
      presentedHash: await deps.sha256(token),
      clientId,
      at,
      next: (previous) => {
        // Narrowing is allowed, widening is not (RFC 6749 §6).
        granted = narrowed ?? previous.scopes
        if (granted.some((s) => !previous.scopes.includes(s))) throw new ScopeWidening()
        return pairDraft(deps, { ...previous, scopes: granted }, secrets, at, previous.scopes)
      },
      audit: grantAudit(deps, at),
    })
    if (outcome.ok) return oauthOk(tokenResponse(secrets, granted))
    const why = {
      reused: 'was used before: every token of its grant is now revoked; sign in again',
      unknown: 'is not valid',
      expired: 'has expired',
      revoked: 'was revoked',
      wrong_client: 'was issued to another client',
    }[outcome.reason]
    return oauthFail('invalid_grant', `The refresh token ${why}.`)
  } catch (error) {
    if (error instanceof ScopeWidening) return oauthFail('invalid_scope', 'A refresh may narrow the scopes, never widen them.')
    throw error
  }
}

/** `/oauth2/token`: the authorization-code grant (PKCE required) and the refresh-token grant (rotating). */
export async function exchangeToken(deps: CoreDeps, form: Form): Promise<OAuthResult<TokenResponse>> {
  switch (form.grant_type) {
    case 'authorization_code':
      return exchangeCode(deps, form)
    case 'refresh_token':
      return refresh(deps, form)
    case undefined:
      return oauthFail('invalid_request', 'grant_type is required.')
    default:
      return oauthFail('unsupported_grant_type', `The grant type ${JSON.stringify(form.grant_type)} is not supported.`)
  }
}

/**
 * `/oauth2/revoke` (RFC 7009): revokes an access token, or a refresh token with every token of its
 * grant. Unknown, foreign or already revoked tokens change nothing, and the answer is the same.
 */
export async function revokeOAuthToken(deps: CoreDeps, form: Form): Promise<OAuthResult<null>> {
  if (!form.token) return oauthFail('invalid_request', 'token is required.')
  const at = deps.clock.now()
  await deps.oauth.revokeToken({
    secretHash: await deps.sha256(form.token),
    clientId: form.client_id ?? null,
    at,
    audit: grantAudit(deps, at),
  })
  return oauthOk(null)
}
