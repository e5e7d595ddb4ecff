import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { issueOperatorToken, type Scope } from '@quire/core'
import type { TestWeb } from './helper.ts'

/** A fresh user with an API key (all scopes unless given). */
export async function userWithKey(web: TestWeb, email: string, scopes?: readonly Scope[]) {
  const issued = await issueOperatorToken(web.runtime.operator, { email, ...(scopes ? { scopes: [...scopes] } : {}) })
  return { token: issued.secret, username: issued.user.username, userId: issued.user.id }
}

/** The SDK's client over Streamable HTTP against the running web app's `/mcp`, with a bearer token (or none). */
export async function mcpClient(web: TestWeb, token: string | null): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${web.url}/mcp`), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  })
  const client = new Client({ name: 'quire-test', version: '0.0.0' })
  await client.connect(transport)
  return client
}

/** A tool result's error (the JSON block of an `isError` result). */
export function toolError(result: CallToolResult): Record<string, unknown> & { code: string; retryable: boolean } {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`)
  const block = result.content[1]
  if (block?.type !== 'text') throw new Error('no error JSON block')
  return (JSON.parse(block.text) as { error: Record<string, unknown> & { code: string; retryable: boolean } }).error
}

/** The first text block of a result. */
export function textOf(result: CallToolResult): string {
  const block = result.content[0]
  return block?.type === 'text' ? block.text : ''
}

/** Calls a tool and returns its structured content, failing on an error result. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`)
  return result.structuredContent as Record<string, unknown>
}

/** Calls a tool that must fail; its error. */
export async function callFailing(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  return { error: toolError(result), text: textOf(result) }
}

/** A REST call to the running API as `token`; the JSON answer, or an error naming the refusal. */
export async function restCall(
  web: TestWeb,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${web.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const json = (await response.json()) as Record<string, unknown>
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

/** A person with an API key and a project `notes` of their own, who writes artifacts through the running API. */
export interface Author {
  readonly owner: Awaited<ReturnType<typeof userWithKey>>
  /** A REST call as the author. */
  api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>
  /** An artifact in `notes` (Markdown, private unless said); its id and its page's path. */
  artifact(
    slug: string,
    options?: { content?: string; publicView?: boolean; title?: string },
  ): Promise<{ readonly id: string; readonly path: string }>
}

/** A fresh author (see `Author`) on the web app's API. */
export async function author(web: TestWeb, email: string): Promise<Author> {
  const owner = await userWithKey(web, email)
  const api = (method: string, path: string, body?: unknown) => restCall(web, owner.token, method, path, body)
  await api('POST', '/api/projects', { ownerUsername: owner.username, slug: 'notes', title: 'Notes', icon: 'N' })
  return {
    owner,
    api,
    async artifact(slug, options = {}) {
      const created = await api('POST', '/api/artifacts', {
        ownerUsername: owner.username,
        projectSlug: 'notes',
        slug,
        type: 'md',
        title: options.title ?? slug,
        content: options.content ?? `# ${slug}\n`,
        changelog: 'first',
        access: { publicView: options.publicView ?? false, publicEdit: false },
      })
      return { id: created.id as string, path: `/${owner.username}/notes/${slug}` }
    },
  }
}
