/**
 * A CANNED AgentStore for testing the package's decision logic only (which error code answers
 * which registration state, what goes into a command, what an audit event holds). It models no
 * storage: each method answers what the test set up and records what it was asked. The real
 * behaviour (hashes only, atomic single use, races) is tested black-box against the apps.
 */
import {
  type AgentOwner,
  type AgentRegistrationRecord,
  type AgentStore,
  type AuditEventDraft,
  type CoreDeps,
  createIdGenerator,
  sha256Hex,
} from '@quire/core'
import { type AgentAuthSettings, createAgentAuth } from '../src/index.ts'

export const owner: AgentOwner = { id: 'usr_ada', username: 'ada', email: 'ada@example.com', personalWorkspaceId: 'ws_ada' }

export const t0 = new Date('2026-03-01T12:00:00.000Z')

export function registration(over: Partial<AgentRegistrationRecord> = {}): AgentRegistrationRecord {
  return {
    id: 'agt_01jh0000000000000000000000',
    type: 'service_auth',
    name: 'Release bot',
    description: null,
    loginHint: 'ada@example.com',
    preClaimScopes: [],
    postClaimScopes: ['artifacts:read', 'artifacts:create'],
    claimExpiresAt: new Date(t0.getTime() + 86_400_000),
    requestedScopes: null,
    userCodeExpiresAt: new Date(t0.getTime() + 600_000),
    pollIntervalSeconds: 5,
    lastPolledAt: null,
    claimedBy: null,
    claimedAt: null,
    redeemedAt: null,
    revokedAt: null,
    createdAt: t0,
    ...over,
  }
}

type Answers = {
  [K in keyof AgentStore]?: Awaited<ReturnType<AgentStore[K]>> | Awaited<ReturnType<AgentStore[K]>>[]
}

/** What the canned store was asked, in order, and the audit events its callbacks produced (for `owner`). */
export interface Canned {
  readonly store: AgentStore
  readonly calls: { method: keyof AgentStore; command: unknown }[]
  readonly events: (AuditEventDraft | null)[]
  asked(method: keyof AgentStore): unknown[]
}

export function cannedStore(answers: Answers = {}): Canned {
  const calls: Canned['calls'] = []
  const events: Canned['events'] = []
  const answer = <K extends keyof AgentStore>(method: K, fallback: Awaited<ReturnType<AgentStore[K]>>) => {
    const given = answers[method] as unknown
    if (Array.isArray(given) && method !== 'listForUser') return (given.length > 1 ? given.shift() : given[0]) ?? fallback
    return given === undefined ? fallback : (given as Awaited<ReturnType<AgentStore[K]>>)
  }
  const record = (method: keyof AgentStore, command: unknown) => calls.push({ method, command })
  const store: AgentStore = {
    async createRegistration(command) {
      record('createRegistration', command)
      const outcome = answer('createRegistration', { ok: true })
      if (outcome.ok && command.audit) events.push(command.audit(owner))
      return outcome
    },
    async findByClaimToken(hash) {
      record('findByClaimToken', hash)
      return answer('findByClaimToken', null)
    },
    async findByUserCode(hash) {
      record('findByUserCode', hash)
      return answer('findByUserCode', null)
    },
    async findById(id) {
      record('findById', id)
      return answer('findById', null)
    },
    async startClaim(command) {
      record('startClaim', command)
      const outcome = answer('startClaim', { ok: true })
      if (outcome.ok && command.audit) events.push(command.audit(owner))
      return outcome
    },
    async confirmClaim(command) {
      record('confirmClaim', command)
      const outcome = answer('confirmClaim', {
        ok: true,
        registration: registration({ claimedBy: owner, claimedAt: command.at, userCodeExpiresAt: null }),
      })
      if (outcome.ok) events.push(command.audit(outcome.registration, owner))
      return outcome
    },
    async startScopeRequest(command) {
      record('startScopeRequest', command)
      const outcome = answer('startScopeRequest', { ok: true })
      if (outcome.ok) events.push(command.audit(registration({ claimedBy: owner }), owner))
      return outcome
    },
    async approveScopeRequest(command) {
      record('approveScopeRequest', command)
      const outcome = answer('approveScopeRequest', {
        ok: true,
        registration: registration({ claimedBy: owner, userCodeExpiresAt: null, postClaimScopes: ['artifacts:read', ...command.scopes] }),
      })
      if (outcome.ok) events.push(command.audit(outcome.registration, owner))
      return outcome
    },
    async recordPoll(id, at) {
      record('recordPoll', { id, at })
      return answer('recordPoll', 'ok')
    },
    async redeemClaim(command) {
      record('redeemClaim', command)
      const outcome = answer('redeemClaim', { ok: true, registration: registration({ claimedBy: owner, redeemedAt: command.at }) })
      if (outcome.ok) events.push(command.audit(outcome.registration, owner))
      return outcome
    },
    async exchangeAssertion(command) {
      record('exchangeAssertion', command)
      const outcome = answer('exchangeAssertion', { ok: true, registration: registration() })
      if (outcome.ok && command.audit) events.push(command.audit(outcome.registration, owner))
      return outcome
    },
    async revokeToken(command) {
      record('revokeToken', command)
      const claimed = registration({ claimedBy: owner })
      events.push(command.audit(claimed, owner, 'tok_1'))
      events.push(command.audit(registration({ type: 'anonymous', loginHint: null }), null, 'tok_2'))
    },
    async listForUser(userId, page) {
      record('listForUser', { userId, page })
      return []
    },
    async revokeAgent(command) {
      record('revokeAgent', command)
      return { ok: false, reason: 'not_found' }
    },
    async revokeSelf(command) {
      record('revokeSelf', command)
      const outcome = answer('revokeSelf', { ok: true, registration: registration({ claimedBy: owner, revokedAt: command.at }) })
      if (outcome.ok) events.push(command.audit(outcome.registration, outcome.registration.claimedBy, 'tok_1'))
      return outcome
    },
  }
  return { store, calls, events, asked: (method) => calls.filter((c) => c.method === method).map((c) => c.command) }
}

export const testKey = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256)

export function testSettings(over: Partial<AgentAuthSettings> = {}): AgentAuthSettings {
  return {
    signingKey: testKey,
    allowedScopes: ['artifacts:read', 'artifacts:create', 'artifacts:update'],
    preClaimScopes: ['artifacts:read'],
    ...over,
  }
}

export const urls = { webUrl: 'https://quire.example', apiUrl: 'https://api.quire.example' }

/** The layer over a canned store and a clock the test moves; only the ports the layer uses are present. */
export function layer(answers: Answers = {}, settings = testSettings()) {
  const canned = cannedStore(answers)
  const clock = { at: t0, now: () => clock.at }
  const deps = {
    clock,
    ids: createIdGenerator(),
    sha256: sha256Hex,
    agents: canned.store,
    accounts: { profile: async () => null },
  } as unknown as CoreDeps
  return { auth: createAgentAuth(deps, settings, urls), canned, clock }
}
