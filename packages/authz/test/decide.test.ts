import { type Action, Actions, type Principal, type PrincipalUser, type Resource, type Scope, scopeFor, scopes } from '@quire/core'
import { describe, expect, it } from 'vitest'
import { createPolicy, decide } from '../src/index.ts'

type Expect = 'allow' | 'unauthenticated' | 'not_found' | 'forbidden' | 'insufficient_scope'

const ada: PrincipalUser = { id: 'usr_ada', email: 'ada@example.com', emailVerified: true, username: 'ada' }
const bob: PrincipalUser = { id: 'usr_bob', email: 'bob@example.com', emailVerified: true, username: 'bob' }
const all = [...scopes]

const principals = {
  anonymous: { kind: 'anonymous' },
  session: { kind: 'session', credentialId: 'ses_1', user: ada, scopes: 'all' },
  apiKey: { kind: 'api_key', credentialId: 'key_1', user: ada, scopes: all },
  apiKeyNoScopes: { kind: 'api_key', credentialId: 'key_2', user: ada, scopes: [] },
  oauth: { kind: 'oauth', credentialId: 'tok_1', user: ada, scopes: all },
  agent: { kind: 'agent', credentialId: 'tok_2', agentId: 'agt_1', agentName: 'Release bot', user: ada, scopes: all },
  unclaimedAgent: { kind: 'agent', credentialId: 'tok_3', agentId: 'agt_2', agentName: 'Agent agt2', user: null, scopes: all },
  linkViewer: { kind: 'share_link', credentialId: 'shl_1', artifactId: 'art_1', role: 'viewer' },
  linkEditor: { kind: 'share_link', credentialId: 'shl_2', artifactId: 'art_1', role: 'editor' },
  otherLinkEditor: { kind: 'share_link', credentialId: 'shl_3', artifactId: 'art_other', role: 'editor' },
} satisfies Record<string, Principal>
type PrincipalName = keyof typeof principals

function artifact(over: Partial<Extract<Resource, { type: 'artifact' }>> = {}): Resource {
  return { type: 'artifact', id: 'art_1', workspaceId: 'ws_1', role: null, publicView: false, publicEdit: false, viewerEmails: [], ...over }
}

const artifactActions = Actions.filter((a) => a.startsWith('artifact.'))
const only = (allowed: readonly Action[], otherwise: Expect, actions: readonly Action[] = Actions) =>
  Object.fromEntries(actions.map((a) => [a, allowed.includes(a) ? 'allow' : otherwise])) as Record<Action, Expect>
const every = (value: Expect, actions: readonly Action[] = Actions) => only([], value, actions)

interface Scenario {
  readonly name: string
  readonly resource: Resource
  readonly expect: Partial<Record<PrincipalName, Record<Action, Expect>>>
}

const memberActions: Action[] = [
  'artifact.read',
  'artifact.create',
  'artifact.update',
  'artifact.access.read',
  'audit.read',
  'project.read',
  'project.create',
  'workspace.read',
  'workspace.members.read',
]

/** Actions any credential of the user may take, whatever its scopes (reading one's profile, accepting one's invitation). */
const unscoped: Action[] = ['profile.read', 'invitation.accept']

/** Every action × principal kind, on the situations that matter. */
const scenarios: Scenario[] = [
  {
    name: 'private artifact in a workspace the user owns',
    resource: artifact({ role: 'owner' }),
    expect: {
      anonymous: every('not_found'),
      session: every('allow'),
      apiKey: every('allow'),
      apiKeyNoScopes: every('insufficient_scope'),
      oauth: every('allow'),
      agent: every('allow'),
      unclaimedAgent: every('not_found'),
      linkViewer: only(['artifact.read'], 'forbidden'),
      linkEditor: only(['artifact.read', 'artifact.update'], 'forbidden'),
      otherLinkEditor: every('not_found'),
    },
  },
  {
    name: 'private artifact in a workspace where the user is a member',
    resource: artifact({ role: 'member' }),
    expect: {
      session: only(memberActions, 'forbidden'),
      apiKey: only(memberActions, 'forbidden'),
      agent: only(memberActions, 'forbidden'),
    },
  },
  {
    name: 'private artifact, admin',
    resource: artifact({ role: 'admin' }),
    expect: { session: every('allow'), oauth: every('allow') },
  },
  {
    name: 'private artifact of someone else',
    resource: artifact(),
    expect: {
      anonymous: every('not_found'),
      session: every('not_found'),
      apiKey: every('not_found'),
      apiKeyNoScopes: every('not_found'),
      oauth: every('not_found'),
      agent: every('not_found'),
      unclaimedAgent: every('not_found'),
    },
  },
  {
    name: 'publicly viewable artifact of someone else',
    resource: artifact({ publicView: true }),
    expect: {
      anonymous: only(['artifact.read', 'project.read'], 'unauthenticated'),
      session: only(['artifact.read', 'project.read'], 'forbidden'),
      apiKey: only(['artifact.read', 'project.read'], 'forbidden'),
      oauth: only(['artifact.read', 'project.read'], 'forbidden'),
      unclaimedAgent: only(['artifact.read', 'project.read'], 'forbidden'),
    },
  },
  {
    name: 'publicly viewable and editable artifact of someone else',
    resource: artifact({ publicView: true, publicEdit: true }),
    expect: {
      anonymous: only(['artifact.read', 'project.read'], 'unauthenticated'),
      session: only(['artifact.read', 'artifact.update', 'project.read'], 'forbidden'),
      apiKey: only(['artifact.read', 'artifact.update', 'project.read'], 'forbidden'),
      unclaimedAgent: only(['artifact.read', 'artifact.update', 'project.read'], 'forbidden'),
    },
  },
  {
    name: 'private artifact with the user on the viewer allowlist',
    resource: artifact({ viewerEmails: ['ada@example.com'] }),
    expect: {
      session: only(['artifact.read', 'project.read'], 'forbidden'),
      apiKey: only(['artifact.read', 'project.read'], 'forbidden'),
      anonymous: every('not_found'),
      unclaimedAgent: every('not_found'),
    },
  },
  {
    name: 'a workspace the user belongs to (member)',
    resource: { type: 'workspace', id: 'ws_1', role: 'member' },
    expect: {
      anonymous: every('unauthenticated'),
      session: only(memberActions, 'forbidden'),
      apiKey: only(memberActions, 'forbidden'),
      apiKeyNoScopes: only([], 'insufficient_scope', memberActions),
      oauth: only(memberActions, 'forbidden'),
      agent: only(memberActions, 'forbidden'),
      unclaimedAgent: every('not_found'),
      linkViewer: every('not_found'),
      linkEditor: every('not_found'),
    },
  },
  {
    name: 'a workspace the user does not belong to',
    resource: { type: 'workspace', id: 'ws_2', role: null },
    expect: { session: every('not_found'), apiKey: every('not_found') },
  },
  {
    name: 'the caller’s own account',
    resource: { type: 'account' },
    expect: {
      anonymous: every('unauthenticated'),
      session: every('allow'),
      apiKey: every('allow'),
      apiKeyNoScopes: only(unscoped, 'insufficient_scope'),
      unclaimedAgent: every('forbidden'),
      linkViewer: every('forbidden'),
    },
  },
  {
    name: 'an invitation to the user’s verified email',
    resource: { type: 'invitation', id: 'inv_1', email: 'ada@example.com' },
    expect: {
      anonymous: every('unauthenticated', ['invitation.accept']),
      session: every('allow', ['invitation.accept']),
      apiKey: every('allow', ['invitation.accept']),
      apiKeyNoScopes: every('allow', ['invitation.accept']),
      oauth: every('allow', ['invitation.accept']),
      agent: every('allow', ['invitation.accept']),
      unclaimedAgent: every('forbidden', ['invitation.accept']),
      linkEditor: every('forbidden', ['invitation.accept']),
    },
  },
  {
    name: 'an invitation to someone else’s email',
    resource: { type: 'invitation', id: 'inv_2', email: 'bob@example.com' },
    expect: { session: every('not_found', ['invitation.accept']), apiKey: every('not_found', ['invitation.accept']) },
  },
]

// 'project.*' actions on an artifact resource have no meaning; the tables above list them for
// completeness only where they are unambiguous, so they are skipped on artifact resources.
const relevant = (resource: Resource, action: Action) => resource.type !== 'artifact' || action.startsWith('artifact.')

describe('decide(): every action × principal kind', () => {
  for (const scenario of scenarios) {
    describe(scenario.name, () => {
      const rows = Object.entries(scenario.expect).flatMap(([who, table]) =>
        Object.entries(table as Record<Action, Expect>)
          .filter(([action]) => relevant(scenario.resource, action as Action))
          .map(([action, expected]) => ({ who: who as PrincipalName, action: action as Action, expected })),
      )
      it.each(rows)('$who $action → $expected', ({ who, action, expected }) => {
        const decision = decide(principals[who], action, scenario.resource)
        expect(decision.reason.length).toBeGreaterThan(0)
        if (expected === 'allow') expect(decision).toMatchObject({ allow: true })
        else expect(decision).toMatchObject({ allow: false, code: expected })
        if (expected === 'insufficient_scope') expect(decision).toMatchObject({ scope: scopeFor(action) })
      })
    })
  }

  it('covers every action with every principal kind at least once', () => {
    const seen = new Set<string>()
    for (const s of scenarios)
      for (const [who, table] of Object.entries(s.expect))
        for (const action of Object.keys(table as object))
          if (relevant(s.resource, action as Action)) seen.add(`${principals[who as PrincipalName].kind}|${action}`)
    const kinds = new Set(Object.values(principals).map((p) => p.kind))
    for (const kind of kinds) for (const action of Actions) expect(seen, `${kind} × ${action}`).toContain(`${kind}|${action}`)
  })

  it('a key carrying only the scope an action needs is allowed that action and nothing else', () => {
    for (const action of artifactActions) {
      const key: Principal = { kind: 'api_key', credentialId: 'key_x', user: ada, scopes: [scopeFor(action) as Scope] }
      for (const other of artifactActions) {
        const decision = decide(key, other, artifact({ role: 'owner' }))
        expect(decision.allow, `${scopeFor(action)} → ${other}`).toBe(scopeFor(other) === scopeFor(action))
      }
    }
  })

  it('on the account and in an owned workspace, a one-scope key may do what needs that scope or none', () => {
    for (const scope of scopes) {
      const key: Principal = { kind: 'api_key', credentialId: 'key_x', user: ada, scopes: [scope] }
      for (const resource of [{ type: 'account' }, { type: 'workspace', id: 'ws_1', role: 'owner' }] as const) {
        for (const action of Actions) {
          const needed = scopeFor(action)
          expect(decide(key, action, resource).allow, `${scope} → ${action} on ${resource.type}`).toBe(needed === null || needed === scope)
        }
      }
    }
  })

  it('an unverified email is never invited', () => {
    const unverified: Principal = { kind: 'api_key', credentialId: 'key_u', user: { ...ada, emailVerified: false }, scopes: all }
    expect(decide(unverified, 'invitation.accept', { type: 'invitation', id: 'inv_1', email: 'ada@example.com' })).toMatchObject({
      allow: false,
      code: 'not_found',
    })
  })

  it('an unverified email on the allowlist grants nothing', () => {
    const unverified: Principal = { kind: 'session', credentialId: 'ses_2', user: { ...bob, emailVerified: false }, scopes: 'all' }
    expect(decide(unverified, 'artifact.read', artifact({ viewerEmails: ['bob@example.com'] }))).toMatchObject({
      allow: false,
      code: 'not_found',
    })
  })
})

describe('authenticate()', () => {
  const now = new Date('2026-11-22T12:00:00.000Z')
  const policy = createPolicy({ audience: 'https://api.example.com' })
  const base = {
    id: 'key_1',
    kind: 'api_key' as const,
    scopes: ['artifacts:read', 'not-a-scope'],
    expiresAt: null,
    revokedAt: null,
    audience: null,
    accountWorkspaceId: null,
    user: ada,
    agentId: null,
    agentName: null,
    artifactId: null,
    role: null,
  }

  it('turns a live API key into a principal with only the known scopes', () => {
    expect(policy.authenticate(base, now)).toEqual({
      ok: true,
      principal: { kind: 'api_key', credentialId: 'key_1', user: ada, scopes: ['artifacts:read'] },
    })
  })
  it.each([
    ['unknown', null, 'unknown credential'],
    ['revoked', { ...base, revokedAt: new Date(now.getTime() - 1) }, 'revoked'],
    ['expired at this very moment', { ...base, expiresAt: now }, 'expired'],
    [
      'OAuth token for another resource',
      { ...base, kind: 'oauth' as const, audience: 'https://elsewhere.example.com' },
      'issued for another resource',
    ],
  ])('refuses a credential that is %s', (_name, record, reason) => {
    expect(policy.authenticate(record, now)).toEqual({ ok: false, reason })
  })
  it('accepts an OAuth token for this resource, ignoring one trailing slash', () => {
    expect(policy.authenticate({ ...base, kind: 'oauth', audience: 'https://api.example.com/' }, now)).toMatchObject({ ok: true })
  })
  it("turns an agent token into a principal with its agent's name, or the generated one when the row has none", () => {
    const token = { ...base, id: 'tok_9', kind: 'agent' as const, agentId: 'agt_01jc0000000000000000007f3k' }
    expect(policy.authenticate({ ...token, agentName: 'Release bot' }, now)).toMatchObject({
      ok: true,
      principal: { kind: 'agent', agentId: token.agentId, agentName: 'Release bot' },
    })
    expect(policy.authenticate(token, now)).toMatchObject({ ok: true, principal: { agentName: 'Agent 7f3k' } })
  })
  it('accepts a key that expires later', () => {
    expect(policy.authenticate({ ...base, expiresAt: new Date(now.getTime() + 1) }, now)).toMatchObject({ ok: true })
  })
})
