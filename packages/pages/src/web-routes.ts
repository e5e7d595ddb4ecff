import { webPaths as top } from '@quire/core'
import type { Artifact, Project } from '@quire/core/contract'
import { framesScriptFile } from './rendered.ts'
import { stylesheetFile } from './stylesheet.ts'

/**
 * Every route the web app serves, in one table: the pattern Fastify registers, the methods it
 * answers, the query it reads, and a builder of the path (each segment encoded). The routes
 * (`@quire/site`, `@quire/sign-in`) register `pattern`; pages, redirects and `Location` headers
 * build their URLs with `path()`. Each first segment is one of core's `webPaths` (the names no
 * owner can take) or a parameter (`/:owner/…`). No other file of the web app writes a path
 * (packages/pages/test/literal-paths.test.ts), and apps/web/test/routes.test.ts checks that
 * the table and what the app registers are the same routes.
 */

/** The names of a pattern's parameters: `/s/:token/raw` → `token`, `/dev-oidc/*` → `*`. */
type ParamNames<P extends string> = P extends `${infer Head}/${infer Tail}` ? ParamName<Head> | ParamNames<Tail> : ParamName<P>
type ParamName<S extends string> = S extends `:${infer Name}` ? Name : S extends '*' ? '*' : never

/** The parameters a path of `pattern` needs, each by name. */
export type ParamsOf<P extends string> = { readonly [Name in ParamNames<P>]: string }

/** A query value: absent (left out) or text or a number. */
export type QueryValue = string | number | null | undefined

export type WebMethod = 'GET' | 'POST' | 'OPTIONS' | 'DELETE'

export interface WebRoute<P extends string = string, Q extends string = string> {
  /** The pattern Fastify registers (`/settings/keys/:apiKeyId/revoke`). */
  readonly pattern: P
  /** The methods the app answers on it (`GET` answers `HEAD` too); `*`: every method (a mount). */
  readonly methods: readonly WebMethod[] | '*'
  /** The query parameters its links may carry, in the order `path()` writes them. */
  readonly query: readonly Q[]
  /** Its URLs carry a secret (a share link, a code, a sign-in in progress): nothing may send them on in a Referer. */
  readonly secret: boolean
  /** The path of this route for `params` (each encoded), with the query's non-empty values. */
  path(
    ...args: keyof ParamsOf<P> extends never ? [params?: ParamsOf<P>, query?: QueryOf<Q>] : [params: ParamsOf<P>, query?: QueryOf<Q>]
  ): string
}

export type QueryOf<Q extends string> = { readonly [Name in Q]?: QueryValue }

/** A parameter in a pattern (`:name`) or a mount's rest (`*`). */
const parameter = /:([A-Za-z0-9_]+)|\*/g

function route<const P extends string, const Q extends string = never>(
  pattern: P,
  methods: readonly WebMethod[] | '*',
  options: { readonly query?: readonly Q[]; readonly secret?: boolean } = {},
): WebRoute<P, Q> {
  const query = options.query ?? []
  return {
    pattern,
    methods,
    query,
    secret: options.secret ?? false,
    path: (...[params, values]: [params?: Readonly<Record<string, string>>, query?: QueryOf<Q>]) => {
      const path = pattern.replace(parameter, (whole, name: string | undefined) => {
        const value = params?.[name ?? whole]
        if (value === undefined) throw new Error(`${pattern} needs ${whole}`)
        // A mount's rest is a path already; a named parameter is one segment.
        return name === undefined ? value : encodeURIComponent(value)
      })
      const search = query
        .flatMap((name) => {
          const value = values?.[name]
          return value === undefined || value === null ? [] : [`${name}=${encodeURIComponent(String(value))}`]
        })
        .join('&')
      return search === '' ? path : `${path}?${search}`
    },
  }
}

const account = `/${top.settings}` as const
const workspace = `${account}/workspaces/:workspaceId` as const
const artifact = '/:owner/:project/:slug' as const
const shareLink = `/${top.shareLink}/:token` as const
const devProvider = `/${top.devOidc}` as const
const oauth2 = `/${top.oauth2}` as const
const wellKnown = `/${top.wellKnown}` as const
const listing = ['cursor', 'notice'] as const
const trail = ['action', 'limit', 'cursor'] as const

export const webRoutes = {
  // The front page, the stylesheet and the load balancer's probe.
  home: route('/', ['GET']),
  stylesheet: route(`/${top.assets}/${stylesheetFile}`, ['GET']),
  /** The one script of the web app: fits the frames of rendered documents (rendered.ts). */
  framesScript: route(`/${top.assets}/${framesScriptFile}`, ['GET']),
  health: route(`/${top.health}`, ['GET']),

  // Signing in (OpenID Connect), the bundled development provider, and signing out.
  signIn: route(`/${top.login}`, ['GET'], { query: ['return_to'], secret: true }),
  signInCallback: route(`/${top.auth}/callback`, ['GET'], { secret: true }),
  signOut: route(`/${top.logout}`, ['POST']),
  devProvider: route(`${devProvider}/*`, '*'),
  devSignIn: route(`${devProvider}/interaction/:uid`, ['GET', 'POST'], { secret: true }),

  // The OAuth 2.1 authorization server and its discovery documents (RFC 8414, RFC 9728).
  authorizationServerMetadata: route(`${wellKnown}/oauth-authorization-server`, ['GET']),
  protectedResourceMetadata: route(`${wellKnown}/oauth-protected-resource`, ['GET']),
  mcpResourceMetadata: route(`${wellKnown}/oauth-protected-resource/${top.mcp}`, ['GET']),
  oauthRegister: route(`${oauth2}/register`, ['OPTIONS', 'POST']),
  oauthAuthorize: route(`${oauth2}/authorize`, ['GET', 'POST'], { secret: true }),
  oauthToken: route(`${oauth2}/token`, ['POST']),
  oauthRevoke: route(`${oauth2}/revoke`, ['POST']),

  // The agent registration layer (on with AUTH_MD_ENABLED).
  authMd: route(`/${top.authMd}`, ['GET']),
  agentIdentity: route(`/${top.agent}/identity`, ['POST', 'DELETE']),
  agentIdentityClaim: route(`/${top.agent}/identity/claim`, ['POST']),
  agentIdentityScopes: route(`/${top.agent}/identity/scopes`, ['POST']),
  agentClaim: route(`/${top.agent}/claim`, ['GET', 'POST'], { query: ['user_code'], secret: true }),

  // The MCP endpoint.
  mcp: route(`/${top.mcp}`, ['POST', 'GET', 'DELETE', 'OPTIONS']),

  // The account's settings.
  profile: route(account, ['GET'], { query: ['notice'] }),
  username: route(`${account}/profile`, ['POST']),
  apiKeys: route(`${account}/keys`, ['GET', 'POST'], { query: listing }),
  apiKeyRevoke: route(`${account}/keys/:apiKeyId/revoke`, ['POST']),
  agents: route(`${account}/agents`, ['GET'], { query: listing }),
  agentRevoke: route(`${account}/agents/:agentId/revoke`, ['POST']),
  workspaces: route(`${account}/workspaces`, ['GET', 'POST'], { query: listing }),
  workspace: route(workspace, ['GET'], { query: listing }),
  workspaceInvitations: route(`${workspace}/invitations`, ['POST']),
  workspaceInvitationRevoke: route(`${workspace}/invitations/:invitationId/revoke`, ['POST']),
  workspaceAudit: route(`${workspace}/audit`, ['GET'], { query: trail }),
  invitations: route(`${account}/invitations`, ['GET'], { query: listing }),
  invitationAccept: route(`${account}/invitations/:invitationId/accept`, ['POST']),
  accountAudit: route(`${account}/audit`, ['GET'], { query: trail }),

  // Share links: the URL is the secret.
  sharedArtifact: route(shareLink, ['GET'], { query: ['version', 'view'], secret: true }),
  sharedRaw: route(`${shareLink}/raw`, ['GET'], { query: ['version'], secret: true }),

  // Publishing from the browser: a new artifact (into a project given as OWNER/PROJECT) and a new project.
  newArtifact: route(`/${top.new}`, ['GET', 'POST'], { query: ['project'] }),
  newProject: route(`/${top.new}/project`, ['GET', 'POST'], { query: ['owner'] }),

  // Searching what the signed-in person may read: the query and its filters, as `searchArtifacts` takes them.
  search: route(`/${top.search}`, ['GET'], { query: ['q', 'owner', 'project', 'type', 'versions', 'cursor'] }),

  // Owners, projects and artifacts, under names people chose.
  owner: route('/:owner', ['GET'], { query: ['cursor'] }),
  project: route('/:owner/:project', ['GET'], { query: listing }),
  artifact: route(artifact, ['GET'], { query: ['version', 'view', 'notice'] }),
  artifactRaw: route(`${artifact}/raw`, ['GET'], { query: ['version'] }),
  history: route(`${artifact}/history`, ['GET'], { query: ['cursor'] }),
  diff: route(`${artifact}/diff`, ['GET'], { query: ['from', 'to'] }),
  diffPatch: route(`${artifact}/diff.patch`, ['GET'], { query: ['from', 'to'] }),
  artifactAudit: route(`${artifact}/audit`, ['GET'], { query: trail }),
  edit: route(`${artifact}/edit`, ['GET', 'POST']),
  restore: route(`${artifact}/restore`, ['POST']),
  delete: route(`${artifact}/delete`, ['GET', 'POST']),
  artifactSettings: route(`${artifact}/settings`, ['GET'], { query: listing }),
  artifactAccess: route(`${artifact}/settings/access`, ['POST']),
  shareLinks: route(`${artifact}/settings/share-links`, ['POST']),
  shareLinkRevoke: route(`${artifact}/settings/share-links/:id/revoke`, ['POST']),
} as const

export type WebRouteName = keyof typeof webRoutes

/** The development provider's mount (its issuer is the web origin and this). */
export const devProviderPath = devProvider

/** The stylesheet every page links: its name changes with its content, so browsers may keep it forever. */
export const stylesheetPath = webRoutes.stylesheet.path()

/** The parameters of an artifact's paths, from its names. */
export function artifactParams(
  artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>,
): ParamsOf<typeof webRoutes.artifact.pattern> {
  return { owner: artifact.ownerUsername, project: artifact.projectSlug, slug: artifact.slug }
}

/** The path of an artifact's page, from its names. */
export function artifactPath(artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>): string {
  return webRoutes.artifact.path(artifactParams(artifact))
}

/** The paths of an artifact's owner pages and forms. */
export function ownerPaths(artifact: Pick<Artifact, 'ownerUsername' | 'projectSlug' | 'slug'>) {
  const params = artifactParams(artifact)
  return {
    artifact: webRoutes.artifact.path(params),
    history: webRoutes.history.path(params),
    edit: webRoutes.edit.path(params),
    restore: webRoutes.restore.path(params),
    delete: webRoutes.delete.path(params),
    settings: webRoutes.artifactSettings.path(params),
    audit: webRoutes.artifactAudit.path(params),
    access: webRoutes.artifactAccess.path(params),
    shareLinks: webRoutes.shareLinks.path(params),
    revoke: (shareLinkId: string) => webRoutes.shareLinkRevoke.path({ ...params, id: shareLinkId }),
  }
}

/** The path of an owner namespace's page. */
export function ownerPath(owner: string): string {
  return webRoutes.owner.path({ owner })
}

/** The path of a project's page. */
export function projectPath(project: Pick<Project, 'ownerUsername' | 'slug'>): string {
  return webRoutes.project.path({ owner: project.ownerUsername, project: project.slug })
}

/** The path of a workspace's settings page. */
export function workspaceSettingsPath(workspaceId: string): string {
  return webRoutes.workspace.path({ workspaceId })
}

/** Where to sign in and come back to `returnTo` (a path on this origin). */
export function signInPath(returnTo: string): string {
  return webRoutes.signIn.path({}, { return_to: returnTo })
}

/** A project named as `OWNER/PROJECT` (the new-artifact form's `project`, as the CLI and the API's paths name one). */
export function projectRef(project: Pick<Project, 'ownerUsername' | 'slug'>): string {
  return `${project.ownerUsername}/${project.slug}`
}

/** The project an `OWNER/PROJECT` reference names, or null when it names none. */
export function parseProjectRef(ref: string): { owner: string; projectSlug: string } | null {
  const [owner, projectSlug, ...rest] = ref.split('/')
  return owner && projectSlug && rest.length === 0 ? { owner, projectSlug } : null
}
