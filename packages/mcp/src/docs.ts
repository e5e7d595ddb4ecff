import { operations } from '@quire/core'
import { artifactTemplate } from './resources.ts'
import type { CompiledTool } from './tools/compile.ts'
import { CONTENT_WINDOW_BYTES } from './tools/table.ts'

interface JsonSchema {
  readonly type?: string | string[]
  readonly enum?: readonly unknown[]
  readonly anyOf?: readonly JsonSchema[]
  readonly items?: JsonSchema
  readonly description?: string
  readonly properties?: Record<string, JsonSchema>
  readonly required?: readonly string[]
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => `\`${String(value)}\``).join(' \\| ')
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' \\| ')
  if (schema.type === 'array' && schema.items) return `${typeOf(schema.items)}[]`
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ')
  return schema.type ?? 'any'
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function hintsOf(tool: CompiledTool): string {
  const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations
  return [readOnlyHint ? 'read-only' : 'writes', destructiveHint ? 'destructive' : null, idempotentHint ? 'idempotent' : null]
    .filter(Boolean)
    .join(', ')
}

/** docs/mcp.md, generated from the tool table (a test fails when the file is stale). */
export function toolCatalogMarkdown(tools: readonly CompiledTool[]): string {
  const out: string[] = [
    '# MCP tools',
    '',
    '<!-- Generated from packages/mcp/src/tools/table.ts by `pnpm docs:mcp`; do not edit by hand. -->',
    '',
    `Quire's MCP server answers at \`POST {web_url}/mcp\` (stateless Streamable HTTP) and over stdio with`,
    '`quire mcp`. Both serve the same tools, each running one operation of the REST operation table with',
    'the same authorization and audit trail. Every tool sets all four annotations (`openWorldHint` is',
    'always false), declares an `outputSchema` and returns `structuredContent`, with the same JSON in its',
    'text block (a content or a diff is a member of it, not the text itself). A failure is a result',
    'with `isError: true`: a sentence naming the next step, then `{"error": {code, retryable, title,',
    'detail, …}}` as JSON (`scope` on `insufficient_scope`, with `handOff` for an agent token, `errors` per field on `validation_failed`,',
    '`latestVersion` and `diff` on `version_conflict`, or `diffWithheld` when the credential may not read',
    'the content: a write never shows what a read would not).',
    '',
    `\`get_artifact_content\` returns at most ${CONTENT_WINDOW_BYTES / 1024} KiB of UTF-8 per call; \`truncated\` and \`nextOffset\``,
    'say where the next window starts. List tools take `limit` (1–100) and `cursor` and return `nextCursor`.',
    'Writes that can be retried take an optional `idempotencyKey`.',
    '',
    `Resources: the template \`${artifactTemplate.uriTemplate}\` reads an artifact's content with its MIME`,
    'type; `resources/list` lists your artifacts.',
    '',
    '| Tool | Does | Scopes (each needed) | Hints | REST operation |',
    '|---|---|---|---|---|',
  ]
  for (const tool of tools) {
    const ops = [tool.spec.operation, ...(tool.spec.without ? [tool.spec.without.operation] : [])]
    const rest = ops.map((id) => `\`${operations[id].method} ${operations[id].path}\``).join(', ')
    out.push(
      `| [\`${tool.name}\`](#${tool.name}) | ${cell(tool.title)} | ${tool.scopes.map((s) => `\`${s}\``).join(', ') || '—'} | ${hintsOf(tool)} | ${rest} |`,
    )
  }
  for (const tool of tools) {
    const schema = tool.inputSchema as JsonSchema
    const required = new Set(schema.required ?? [])
    out.push('', `## ${tool.name}`, '', tool.description, '')
    const fields = Object.entries(schema.properties ?? {})
    if (fields.length === 0) {
      out.push('No input fields.')
      continue
    }
    out.push('| Field | Type | Required | Description |', '|---|---|---|---|')
    for (const [name, field] of fields)
      out.push(`| \`${name}\` | ${typeOf(field)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(field.description ?? '')} |`)
  }
  return `${out.join('\n')}\n`
}
