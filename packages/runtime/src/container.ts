import { hash } from 'node:crypto'
import { resolve } from 'node:path'
import { type AgentAuth, agentPaths, createAgentAuth } from '@quire/agent-auth'
import { createPolicy } from '@quire/authz'
import { type Clock, type CoreDeps, createIdGenerator, type OperatorDeps, oauthServerConfig, systemClock } from '@quire/core'
import { createStores, type DatabaseConfig, type DatabaseHandle, DatabaseInUseError, migrateToLatest, openDatabase } from '@quire/storage'
import packageJson from '../package.json' with { type: 'json' }
import { agentAuthSettings, contentUrlOf, type Env } from './config.ts'
import { previewKey, previewLinks } from './previews.ts'
import { allowedHostsOf, startWebhookWorker, type WebhookWorker, webhookSecurity } from './webhooks.ts'

/** Everything the app runs on, wired once. */
export interface Runtime {
  readonly deps: CoreDeps
  readonly operator: OperatorDeps
  readonly database: DatabaseHandle
  /** The agent registration layer (auth.md); null when AUTH_MD_ENABLED is not `true`. */
  readonly agentAuth: AgentAuth | null
  /** This process's webhook delivery worker; null unless asked for (`deliverWebhooks`). */
  readonly webhooks: WebhookWorker | null
  /**
   * The same dependencies with OAuth access tokens checked against another audience (RFC 8707):
   * the web app's `/mcp` accepts only tokens issued for `{web_url}/mcp`, the API only its own.
   */
  forAudience(audience: string): CoreDeps
  close(): Promise<void>
}

/** Where the agent layer lives (the authorization server: the web origin) and the API its tokens are for, without trailing slashes. */
function agentAuthUrls(config: CoreDeps['config']): { webUrl: string; apiUrl: string } {
  const oauth = oauthServerConfig(config)
  return { webUrl: oauth.issuer, apiUrl: oauth.defaultResource }
}

/** The database the environment names: PostgreSQL when DATABASE_URL is set, else embedded PGlite. */
export function databaseConfig(env: Env): DatabaseConfig {
  if (env.DATABASE_URL) {
    return {
      kind: 'postgres',
      url: env.DATABASE_URL,
      poolSize: env.DATABASE_POOL_SIZE,
      preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
      ...(env.DATABASE_LISTEN_URL ? { listenUrl: env.DATABASE_LISTEN_URL } : {}),
      onIdleConnectionError: (error) => process.emitWarning(`PostgreSQL ended an idle connection: ${error.message}`),
    }
  }
  return { kind: 'pglite', dataDir: resolve(env.QUIRE_DATA_DIR, 'pglite') }
}

/**
 * The composition root: opens (or adopts) the database, brings its schema up to date, and
 * wires the stores and the policy into core's use-case dependencies.
 */
export interface RuntimeOptions {
  readonly database?: DatabaseHandle
  readonly clock?: Clock
  /**
   * Run this process's webhook delivery worker: the serving processes do (the API, the local
   * server); an operator command, a bench's seeding or a test that does not deliver does not.
   */
  readonly deliverWebhooks?: boolean
}

export async function createRuntime(env: Env, options: RuntimeOptions = {}): Promise<Runtime> {
  // Checked before the database opens: a refused setting costs nothing to undo.
  const agentAuth = agentAuthSettings(env)
  const database = options.database ?? (await openDatabase(databaseConfig(env)))
  await migrateToLatest(database.db)
  // The pruner is the operator's alone: no use-case deletes audit events.
  const { auditPruner, serverKeys, ...stores } = createStores(database, {
    changes: {
      pollMs: env.EVENTS_POLL_MS,
      onListenLost: (error) => process.emitWarning(`The change feed lost its LISTEN connection (polling meanwhile): ${error.message}`),
    },
  })
  const clock = options.clock ?? systemClock
  const ids = createIdGenerator()
  const apiUrl = env.API_URL ?? `http://localhost:${env.API_PORT}`
  const webUrl = env.WEB_URL
  const allowedHosts = allowedHostsOf(env.WEBHOOK_ALLOWED_HOSTS)
  const security = webhookSecurity({ allowedHosts, signingKey: env.WEBHOOK_SIGNING_KEY, store: stores.webhooks })
  const contentUrl = contentUrlOf(env)
  const previews =
    contentUrl === null ? null : previewLinks({ origin: contentUrl, key: await previewKey(env.CONTENT_SIGNING_KEY, serverKeys) })
  const deps: CoreDeps = {
    ...stores,
    webhookSecurity: security,
    previews,
    policy: createPolicy({ audience: apiUrl }),
    clock,
    ids,
    sha256: (text) => hash('sha256', text, 'hex'),
    config: {
      webUrl,
      apiUrl,
      limits: { contentBytes: env.QUIRE_CONTENT_MAX_BYTES },
      version: packageJson.version,
      ...(agentAuth === null
        ? {}
        : {
            agents: {
              allowedScopes: agentAuth.allowedScopes,
              scopeRequestUrl: `${webUrl.replace(/\/+$/, '')}${agentPaths.scopeRequest}`,
            },
          }),
    },
  }
  const webhooks = options.deliverWebhooks
    ? startWebhookWorker(deps, security, { allowedHosts, userAgent: `Quire-Webhooks/${packageJson.version}` })
    : null
  return {
    deps,
    webhooks,
    operator: {
      clock,
      ids,
      accounts: stores.accounts,
      apiKeys: stores.apiKeys,
      workspaces: stores.workspaces,
      auditPruner,
      idempotency: stores.idempotency,
    },
    database,
    agentAuth: agentAuth === null ? null : createAgentAuth(deps, agentAuth, agentAuthUrls(deps.config)),
    forAudience: (audience) => ({ ...deps, policy: createPolicy({ audience }) }),
    close: async () => {
      await webhooks?.stop()
      await stores.changes.close()
      await database.close()
    },
  }
}

/**
 * The runtime of a server process: `createRuntime`, except that an embedded database another
 * process holds ends the start with one sentence on standard error and exit status 1 (no stack),
 * the same in every entry point that serves.
 */
export async function startRuntime(env: Env, options: RuntimeOptions = {}): Promise<Runtime> {
  try {
    return await createRuntime(env, options)
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error
    process.stderr.write(`${error.message} Is Quire already running? Stop it, or point QUIRE_DATA_DIR elsewhere.\n`)
    process.exit(1)
  }
}
