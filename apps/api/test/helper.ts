import { type Clock, issueOperatorToken, type Scope } from '@quire/core'
import { edgeOptions } from '@quire/http-edge'
import { buildApp } from '@quire/rest'
import { createRuntime, type Runtime, readEnv } from '@quire/runtime'
import { oauthTokensFor as oauthTokensForDeps } from '@quire/testing/oauth-tokens'
import { testDatabase, testEngine } from '@quire/testing/test-database'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export const engine = testEngine

export interface TestApi {
  readonly app: FastifyInstance
  readonly runtime: Runtime
  /** On PostgreSQL, this test's database (for other processes or app instances on it); null on PGlite. */
  readonly databaseUrl: string | null
  /** A fresh user with an API key; returns the secret and the username. */
  user(email: string, scopes?: readonly Scope[]): Promise<{ token: string; username: string; userId: string }>
  request(
    method: string,
    url: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>
  /** A request that must succeed (any 2xx); its JSON body. A failure throws with the problem. */
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely, checked by expectations
  call(method: string, url: string, token: string | null, body?: unknown): Promise<any>
  close(): Promise<void>
}

/** A fresh database of this project's engine, migrated, with the API built on it (no network). */
export async function startTestApi(options: { clock?: Clock; env?: Record<string, string>; poolSize?: number } = {}): Promise<TestApi> {
  const database = await testDatabase({ poolSize: options.poolSize ?? 10 })
  const env = readEnv({
    WEB_URL: 'https://quire.test',
    API_URL: 'https://api.quire.test',
    LOG_LEVEL: 'silent',
    // Rate limiting stays on, as configured in production, with a budget that fits a test file
    // firing thousands of requests from one token (the matrix, the fuzzer), and thousands of
    // refused credentials from one address; hardening.test.ts and auth-failures.test.ts set small
    // ones to see them enforced.
    RATE_LIMIT_MAX: '100000',
    RATE_LIMIT_AUTH_FAILURES: '100000',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  })
  const runtime = await createRuntime(env, { database, deliverWebhooks: true, ...(options.clock ? { clock: options.clock } : {}) })
  const app = await buildApp(runtime, { ...edgeOptions(env), eventsHeartbeatSeconds: env.EVENTS_HEARTBEAT_SECONDS })
  const request: TestApi['request'] = (method, url, { token, body, headers } = {}) =>
    app.inject({
      method: method as 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    })
  return {
    app,
    runtime,
    databaseUrl: database.url,
    async user(email, scopes) {
      const issued = await issueOperatorToken(runtime.operator, { email, ...(scopes ? { scopes } : {}) })
      return { token: issued.secret, username: issued.user.username, userId: issued.user.id }
    },
    request,
    async call(method, url, token, body) {
      const res = await request(method, url, { token, ...(body === undefined ? {} : { body }) })
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.body === '' ? null : res.json()
    },
    async close() {
      await app.close()
      await runtime.close()
    },
  }
}

/** A project and an artifact owned by a fresh user; the common starting point. */
export async function seedArtifact(
  api: TestApi,
  options: { email?: string; content?: string; publicView?: boolean; publicEdit?: boolean; slug?: string } = {},
) {
  const owner = await api.user(options.email ?? `owner-${Math.random().toString(36).slice(2, 8)}@example.com`)
  const project = await api.request('POST', '/api/projects', {
    token: owner.token,
    body: { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: '📝' },
  })
  if (project.statusCode !== 201) throw new Error(`project: ${project.statusCode} ${project.body}`)
  const created = await api.request('POST', '/api/artifacts', {
    token: owner.token,
    body: {
      ownerUsername: owner.username,
      projectSlug: 'notes',
      slug: options.slug ?? 'hello',
      type: 'md',
      title: 'Hello',
      content: options.content ?? '# Hello\n',
      changelog: 'first',
      access: { publicView: options.publicView ?? false, publicEdit: options.publicEdit ?? false },
    },
  })
  if (created.statusCode !== 201) throw new Error(`artifact: ${created.statusCode} ${created.body}`)
  return { owner, artifact: created.json() as { id: string; latestVersion: number; slug: string } }
}

/** Counts rows of a table in the test database. */
export async function count(
  api: TestApi,
  table: 'versions' | 'contents' | 'audit_events' | 'artifacts' | 'idempotency_keys',
  where?: { artifactId: string },
) {
  let q = api.runtime.database.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n'))
  if (where && table !== 'contents' && table !== 'idempotency_keys') q = q.where('artifact_id' as never, '=', where.artifactId as never)
  const row = await q.executeTakeFirstOrThrow()
  return Number(row.n)
}

/** OAuth tokens for `email` through the authorization server's own use-cases (see packages/testing/src/oauth-tokens.ts). */
export async function oauthTokensFor(
  api: TestApi,
  email: string,
  resource?: string,
): Promise<{ access_token: string; refresh_token: string; clientId: string }> {
  return oauthTokensForDeps(api.runtime.deps, email, resource)
}

/**
 * An artifact of `owner` in their project `notes` (made on first use), and the next version of
 * one: the changes the live-change tests (events, streams, webhooks) follow.
 */
export async function publishNote(
  api: TestApi,
  owner: { token: string; username: string },
  slug: string,
  publicView = false,
): Promise<{ id: string }> {
  const listed = await api.request('GET', `/api/projects/${owner.username}/notes/artifacts`, { token: owner.token })
  if (listed.statusCode !== 200)
    await api.call('POST', '/api/projects', owner.token, { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'n' })
  return api.call('POST', '/api/artifacts', owner.token, {
    ownerUsername: owner.username,
    projectSlug: 'notes',
    slug,
    type: 'md',
    title: slug,
    content: 'one\n',
    changelog: 'first',
    access: { publicView, publicEdit: false },
  })
}

/** Appends version `expected + 1` of an artifact. */
export function appendNext(api: TestApi, owner: { token: string }, artifactId: string, expected: number) {
  return api.call('POST', `/api/artifacts/${artifactId}/versions`, owner.token, {
    content: `v${expected + 1}\n`,
    expectedLatestVersion: expected,
  })
}
