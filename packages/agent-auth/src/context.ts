import { type AgentRegistrationRecord, type AgentTokenDraft, type CoreDeps, newSecret, type Scope, secretPrefixes } from '@quire/core'
import { agentLifetimes, agentPaths } from './constants.ts'
import type { AgentAuthSettings, AgentAuthUrls } from './types.ts'
import { displayUserCode } from './user-code.ts'

/** Everything a use-case of the layer needs: the ports, the settings, the deployment's addresses. */
export interface AgentContext {
  readonly deps: CoreDeps
  readonly settings: AgentAuthSettings
  /** Without trailing slashes. */
  readonly urls: AgentAuthUrls
  /** The issuer (the web origin): `iss` and `aud` of every assertion. */
  readonly issuer: string
}

export function contextOf(deps: CoreDeps, settings: AgentAuthSettings, urls: AgentAuthUrls): AgentContext {
  const webUrl = urls.webUrl.replace(/\/+$/, '')
  const apiUrl = urls.apiUrl.replace(/\/+$/, '')
  return { deps, settings, urls: { webUrl, apiUrl }, issuer: webUrl }
}

export function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000)
}

export function earliest(a: Date, b: Date): Date {
  return a.getTime() <= b.getTime() ? a : b
}

/** Whole seconds from `now` to `at`, at least 0. */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(0, Math.floor((at.getTime() - now.getTime()) / 1000))
}

/** ISO 8601 UTC with milliseconds. */
export function iso(at: Date): string {
  return at.toISOString()
}

/** The claim block of a registration or claim response: the code and where the person types it. */
export function claimBlock(ctx: AgentContext, code: string, expiresAt: Date, interval: number, now: Date) {
  const shown = displayUserCode(code)
  const page = `${ctx.urls.webUrl}${agentPaths.claimPage}`
  return {
    user_code: shown,
    verification_uri: page,
    verification_uri_complete: `${page}?user_code=${shown}`,
    expires_in: secondsUntil(expiresAt, now),
    interval,
  }
}

/** A fresh user code's hash and expiry: 10 minutes, never past the claim window. */
export async function codeDraft(ctx: AgentContext, code: string, now: Date, claimExpiresAt: Date) {
  return { hash: await ctx.deps.sha256(code), expiresAt: earliest(addSeconds(now, agentLifetimes.userCodeSeconds), claimExpiresAt) }
}

/** A fresh agent access token: the secret (shown once) and what the store keeps (its hash). */
export async function newAgentToken(
  ctx: AgentContext,
  scopes: readonly Scope[],
  expiresAt: Date,
): Promise<{ readonly secret: string; readonly draft: AgentTokenDraft }> {
  const { secret, hash, display } = await newSecret(secretPrefixes.agentToken)
  return { secret, draft: { id: ctx.deps.ids.next('tok'), secretHash: hash, displayPrefix: display, scopes, expiresAt } }
}

/** The scopes a registration's tokens carry now: as registered, within what the deployment still allows. */
export function liveScopes(ctx: AgentContext, registration: AgentRegistrationRecord, stage: 'unclaimed' | 'claimed'): Scope[] {
  const base = stage === 'claimed' ? registration.postClaimScopes : registration.preClaimScopes
  const cap = stage === 'claimed' ? ctx.settings.allowedScopes : ctx.settings.preClaimScopes
  return base.filter((s) => cap.includes(s))
}
