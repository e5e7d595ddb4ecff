/**
 * `listAgents` and `revokeAgent`: the caller's account admitted with `agent.manage` (asked of the
 * policy at account level), the store asked for that person's agents only, and a revocation filed
 * as `agent.revoked` in the person's personal workspace with who did it and through what. The
 * policy and the store here are stand-ins recording what they are asked (the real `decide()` lives
 * in @quire/authz; the web app's account-pages test runs these against the real store).
 */
import { describe, expect, it } from 'vitest'
import {
  type Action,
  type AgentSummaryRecord,
  type AuditEventDraft,
  type Caller,
  type CoreDeps,
  type CredentialRecord,
  type Decision,
  type DenyCode,
  listAgents,
  type PageRequest,
  type Principal,
  type Resource,
  revokeAgent,
} from '../src/index.ts'

const user = { id: 'usr_01jc0000000000000000000001', email: 'ana@example.com', emailVerified: true, username: 'ana' }
const personalWorkspaceId = 'ws_01jc0000000000000000000001'
const now = new Date('2025-02-01T00:00:00.000Z')

const agentA: AgentSummaryRecord = {
  id: 'agt_01jc0000000000000000000002',
  type: 'anonymous',
  name: 'Release bot',
  description: 'Publishes the release notes.',
  scopes: ['artifacts:read', 'artifacts:create'],
  createdAt: new Date('2025-01-02T10:00:00.000Z'),
  claimedAt: new Date('2025-01-02T10:05:00.000Z'),
  lastUsedAt: new Date('2025-01-03T08:00:00.000Z'),
  revokedAt: null,
  // A step-up waiting for the person, its code still live.
  scopeRequest: { scopes: ['artifacts:update'], expiresAt: new Date(now.getTime() + 300_000) },
}
const agentB: AgentSummaryRecord = {
  id: 'agt_01jc0000000000000000000001',
  type: 'service_auth',
  name: 'Agent 0001',
  description: null,
  scopes: ['artifacts:read'],
  createdAt: new Date('2025-01-01T10:00:00.000Z'),
  claimedAt: new Date('2025-01-01T10:01:00.000Z'),
  lastUsedAt: null,
  revokedAt: null,
  // One whose code ran out: nothing is waiting any more.
  scopeRequest: { scopes: ['artifacts:share'], expiresAt: new Date(now.getTime() - 1) },
}

/** What the stand-ins were asked. */
interface Asked {
  decisions: { action: Action; resource: Resource }[]
  lists: { userId: string; page: PageRequest }[]
  revocations: { registrationId: string; userId: string; at: Date; audit: AuditEventDraft }[]
}

/** The principal the credential stands for: a session of Ana, or her claimed agent. */
type As = 'session' | 'agent'

function principalFor(as: As, record: CredentialRecord): Principal {
  return as === 'session'
    ? { kind: 'session', credentialId: record.id, user, scopes: 'all' }
    : { kind: 'agent', credentialId: record.id, agentId: agentA.id, agentName: agentA.name, user, scopes: ['agents:manage'] }
}

function depsFor(options: { as?: As; deny?: DenyCode; owned?: readonly AgentSummaryRecord[] } = {}) {
  const as = options.as ?? 'session'
  const owned = [...(options.owned ?? [agentA, agentB])]
  const asked: Asked = { decisions: [], lists: [], revocations: [] }
  const record: CredentialRecord = {
    id: as === 'session' ? 'ses_01jc0000000000000000000001' : 'tok_01jc0000000000000000000001',
    kind: as,
    scopes: [],
    expiresAt: null,
    revokedAt: null,
    audience: null,
    user,
    agentId: as === 'agent' ? agentA.id : null,
    agentName: as === 'agent' ? agentA.name : null,
    artifactId: null,
    role: null,
    accountWorkspaceId: personalWorkspaceId,
  }
  let evt = 0
  const deps = {
    policy: {
      authenticate: () => ({ ok: true, principal: principalFor(as, record) }),
      decide: (_principal: Principal, action: Action, resource: Resource): Decision => {
        asked.decisions.push({ action, resource })
        return options.deny
          ? {
              allow: false,
              code: options.deny,
              reason: 'denied',
              ...(options.deny === 'insufficient_scope' ? { scope: 'agents:manage' } : {}),
            }
          : { allow: true, reason: 'own account', grant: { kind: 'open' } }
      },
    },
    clock: { now: () => now },
    ids: { next: (prefix: string) => `${prefix}_01jc00000000000000000000${String(++evt).padStart(2, '0')}` },
    credentials: { find: async () => record, touch: () => {}, rejected: () => {} },
    accounts: { profile: async (id: string) => (id === user.id ? { user, personalWorkspaceId, plan: 'free', createdAt: now } : null) },
    agents: {
      listForUser: async (userId: string, page: PageRequest) => {
        asked.lists.push({ userId, page })
        const after = page.after
        return owned.filter((a) => after === null || a.id < after).slice(0, page.limit + 1)
      },
      revokeAgent: async (command: Asked['revocations'][number]) => {
        asked.revocations.push(command)
        const agent = owned.find((a) => a.id === command.registrationId)
        if (!agent) return { ok: false, reason: 'not_found' }
        return { ok: true, agent: { ...agent, revokedAt: agent.revokedAt ?? command.at } }
      },
    },
  } as unknown as CoreDeps
  return { deps, asked }
}

const caller = (surface: Caller['surface'], sessionCookie = true): Caller => ({
  credential: { secretHash: 'a'.repeat(64), ...(sessionCookie ? { sessionCookie: true as const } : {}) },
  surface,
})

describe('listAgents', () => {
  it("lists the caller's agents newest first, as the contract shows them, after asking for agent.manage on the account", async () => {
    const { deps, asked } = depsFor()
    const result = await listAgents(deps, caller('web'), {})
    if (!result.ok) throw new Error(result.error.message)
    expect(asked.decisions).toEqual([{ action: 'agent.manage', resource: { type: 'account' } }])
    expect(asked.lists).toEqual([{ userId: user.id, page: { limit: 50, after: null } }])
    expect(result.value).toEqual({
      items: [
        {
          id: agentA.id,
          type: 'anonymous',
          name: 'Release bot',
          description: 'Publishes the release notes.',
          scopes: ['artifacts:read', 'artifacts:create'],
          createdAt: '2025-01-02T10:00:00.000Z',
          claimedAt: '2025-01-02T10:05:00.000Z',
          lastUsedAt: '2025-01-03T08:00:00.000Z',
          revokedAt: null,
          scopeRequest: { scopes: ['artifacts:update'], expiresAt: '2025-02-01T00:05:00.000Z' },
        },
        {
          id: agentB.id,
          type: 'service_auth',
          name: 'Agent 0001',
          description: null,
          scopes: ['artifacts:read'],
          createdAt: '2025-01-01T10:00:00.000Z',
          claimedAt: '2025-01-01T10:01:00.000Z',
          lastUsedAt: null,
          revokedAt: null,
          scopeRequest: null,
        },
      ],
      nextCursor: null,
    })
  })

  it('pages by id: the cursor of one page reaches the next, and a cursor it did not issue is refused', async () => {
    const { deps, asked } = depsFor()
    const first = await listAgents(deps, caller('web'), { limit: 1 })
    if (!first.ok) throw new Error(first.error.message)
    expect(first.value.items.map((a) => a.id)).toEqual([agentA.id])
    expect(first.value.nextCursor).not.toBeNull()
    const second = await listAgents(deps, caller('web'), { limit: 1, cursor: first.value.nextCursor ?? '' })
    if (!second.ok) throw new Error(second.error.message)
    expect(second.value).toEqual({ items: [expect.objectContaining({ id: agentB.id })], nextCursor: null })
    expect(asked.lists.map((l) => l.page)).toEqual([
      { limit: 1, after: null },
      { limit: 1, after: agentA.id },
    ])
    const forged = await listAgents(deps, caller('web'), { cursor: btoa('1:key_01jc0000000000000000000001') })
    expect(forged).toMatchObject({ ok: false, error: { code: 'invalid_cursor' } })
  })

  it("answers the policy's refusal, and asks the store nothing", async () => {
    const { deps, asked } = depsFor({ deny: 'insufficient_scope' })
    const result = await listAgents(deps, caller('web'), {})
    expect(result).toMatchObject({ ok: false, error: { code: 'insufficient_scope', scope: 'agents:manage' } })
    expect(asked.lists).toEqual([])
  })
})

describe('revokeAgent', () => {
  it('revokes one of the caller’s agents, filing agent.revoked in their personal workspace with the actor and the credential', async () => {
    const { deps, asked } = depsFor()
    const result = await revokeAgent(deps, caller('web'), agentA.id)
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value).toMatchObject({ id: agentA.id, revokedAt: now.toISOString() })
    expect(asked.decisions).toEqual([{ action: 'agent.manage', resource: { type: 'account' } }])
    expect(asked.revocations).toHaveLength(1)
    const [revocation] = asked.revocations
    expect(revocation).toMatchObject({ registrationId: agentA.id, userId: user.id, at: now })
    expect(revocation?.audit).toMatchObject({
      at: now,
      action: 'agent.revoked',
      actor: { kind: 'user', id: user.id, label: 'ana' },
      via: { surface: 'web', credential: 'session', credentialId: 'ses_01jc0000000000000000000001' },
      workspaceId: personalWorkspaceId,
      artifactId: null,
      data: { agentId: agentA.id, reason: 'revoked_by_person' },
    })
    expect(revocation?.audit.id).toMatch(/^evt_/)
  })

  it('records a claimed agent revoking through its own credential as the agent acting for its person', async () => {
    const { deps, asked } = depsFor({ as: 'agent' })
    const result = await revokeAgent(deps, caller('api', false), agentB.id)
    expect(result.ok).toBe(true)
    expect(asked.revocations[0]?.audit).toMatchObject({
      actor: { kind: 'agent', id: agentA.id, label: 'Release bot (agent of ana)', onBehalfOf: { id: user.id, label: 'ana' } },
      via: { surface: 'api', credential: 'agent', credentialId: 'tok_01jc0000000000000000000001' },
    })
  })

  it('answers an agent that is not the caller’s, and an id that is not one, with the same not_found', async () => {
    const { deps, asked } = depsFor({ owned: [agentB] })
    const foreign = await revokeAgent(deps, caller('web'), agentA.id)
    const malformed = await revokeAgent(deps, caller('web'), 'not-an-agent')
    expect(foreign).toMatchObject({ ok: false, error: { code: 'not_found' } })
    expect(malformed).toEqual(foreign)
    // A malformed id never reaches the store.
    expect(asked.revocations.map((r) => r.registrationId)).toEqual([agentA.id])
  })

  it("answers the policy's refusal, and revokes nothing", async () => {
    const { deps, asked } = depsFor({ deny: 'forbidden' })
    const result = await revokeAgent(deps, caller('web'), agentA.id)
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    expect(asked.revocations).toEqual([])
  })
})
