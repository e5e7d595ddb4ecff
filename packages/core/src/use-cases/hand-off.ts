import type { Action } from '../contract/actions.ts'
import type { HandOff } from '../contract/errors.ts'
import type { Scope } from '../contract/scopes.ts'
import type { Principal } from '../domain/principal.ts'
import type { Failure } from '../domain/result.ts'

/** What an agent's scope failure knows of the deployment's agent layer (CoreConfig `agents`). */
export interface AgentLayerConfig {
  /** The most a claimed agent may hold here (`AUTH_MD_ALLOWED_SCOPES`). */
  readonly allowedScopes: readonly Scope[]
  /** Where a claimed agent asks its person for more scopes (`POST`, its token, `{"scopes": "…"}`). */
  readonly scopeRequestUrl: string
}

/** Where the refused action was aimed: an artifact (by its names), a workspace, or the account. */
export type HandOffPlace =
  | { readonly kind: 'artifact'; readonly owner: string; readonly project: string; readonly slug: string }
  | { readonly kind: 'workspace'; readonly id: string }
  | { readonly kind: 'account' }

/**
 * The web page where a person does each action, as a path under the web origin (for an artifact,
 * under its page), and what to ask them, after "Please ". `packages/pages/test/hand-off-pages.test.ts`
 * holds every path to a page of the web app's route table.
 */
const personPages: Record<Action, { readonly under: 'artifact' | 'workspace' | 'site'; readonly path: string; readonly ask: string }> = {
  'artifact.read': { under: 'artifact', path: '', ask: 'read it' },
  'artifact.create': { under: 'site', path: '/', ask: 'publish it' },
  'artifact.update': { under: 'artifact', path: '/edit', ask: 'add the new version' },
  'artifact.delete': { under: 'artifact', path: '/delete', ask: 'delete it' },
  'artifact.share': { under: 'artifact', path: '/settings', ask: 'create the share link' },
  'artifact.access.read': { under: 'artifact', path: '/settings', ask: 'look at who may read it' },
  'artifact.access.write': { under: 'artifact', path: '/settings', ask: 'change who may read it' },
  'audit.read': { under: 'artifact', path: '/audit', ask: 'look at its history of changes' },
  'project.read': { under: 'site', path: '/', ask: 'look at the projects' },
  'project.create': { under: 'site', path: '/', ask: 'create the project' },
  'profile.read': { under: 'site', path: '/settings', ask: 'look at the profile' },
  'profile.update': { under: 'site', path: '/settings', ask: 'change the username' },
  'workspace.read': { under: 'site', path: '/settings/workspaces', ask: 'look at the workspaces' },
  'workspace.create': { under: 'site', path: '/settings/workspaces', ask: 'create the workspace' },
  'workspace.members.read': { under: 'workspace', path: '', ask: 'look at who is in the workspace' },
  'workspace.invite': { under: 'workspace', path: '', ask: 'send the invitation' },
  'invitation.accept': { under: 'site', path: '/settings/invitations', ask: 'accept the invitation' },
  'api_key.manage': { under: 'site', path: '/settings/keys', ask: 'manage the API keys' },
  'agent.manage': { under: 'site', path: '/settings/agents', ask: 'manage the agents' },
  // Webhooks have no page: a key with `webhooks:write` (or `quire webhook create`) sets one up.
  'webhook.manage': { under: 'site', path: '/settings/keys', ask: 'set up the webhook' },
}

/** The page's path for an action at a place (exported for the test that holds them to the route table). */
export function personPagePath(action: Action, place: HandOffPlace): string {
  const page = personPages[action]
  if (page.under === 'artifact' && place.kind === 'artifact')
    return `/${[place.owner, place.project, place.slug].map(encodeURIComponent).join('/')}${page.path}`
  if (page.under === 'workspace' && place.kind === 'workspace') return `/settings/workspaces/${encodeURIComponent(place.id)}${page.path}`
  // Without the place the page needs, the person's overview of what they own.
  return page.under === 'site' ? page.path : '/'
}

/**
 * An agent's scope failure, with what it can do next (issue 30, "hand-offs"). An agent cannot
 * re-authorize through OAuth; what it lacks is either a scope its person may still grant it (within
 * `AUTH_MD_ALLOWED_SCOPES`: the failure names the step-up request) or one no agent may hold here
 * (the failure names the web page where the person does it, and a sentence to relay). Any other
 * failure, or a failure of another kind of credential, is returned as it is.
 */
export function withHandOff(
  config: { readonly webUrl: string; readonly agents?: AgentLayerConfig },
  principal: Principal,
  failure: Failure,
  action: Action,
  place: HandOffPlace,
): Failure {
  if (failure.code !== 'insufficient_scope' || principal.kind !== 'agent' || config.agents === undefined) return failure
  const scope = failure.scope as Scope | undefined
  if (scope === undefined) return failure
  const { allowedScopes, scopeRequestUrl } = config.agents
  const person = principal.user?.username ?? 'the person you work for'
  const pageUrl = `${config.webUrl.replace(/\/+$/, '')}${personPagePath(action, place)}`
  const ask = personPages[action].ask
  let handOff: HandOff
  let message: string
  if (principal.user !== null && allowedScopes.includes(scope)) {
    handOff = {
      kind: 'step_up',
      scope,
      url: scopeRequestUrl,
      instruction: `POST ${scopeRequestUrl} with your access token and {"scopes":"${scope}"}, show ${person} the link and code it returns, and exchange your identity assertion again once they confirm.`,
      personUrl: pageUrl,
    }
    message = `${failure.message} Your person may grant it: ask for it at ${scopeRequestUrl} (see handOff).`
  } else {
    handOff = {
      kind: 'person',
      scope,
      url: pageUrl,
      instruction: `Please ${ask} yourself at ${pageUrl}: agents cannot hold \`${scope}\` on this Quire.`,
    }
    message =
      principal.user === null
        ? `${failure.message} An unclaimed agent acts for no one: your person claims you first (see /auth.md), or does it at ${pageUrl}.`
        : `${failure.message} No agent may hold it on this Quire (AUTH_MD_ALLOWED_SCOPES): ${person} can do it at ${pageUrl}; relay handOff.instruction to them.`
  }
  return { ...failure, message, meta: { ...failure.meta, handOff } }
}
