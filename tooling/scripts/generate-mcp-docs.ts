import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { compiledTools, toolCatalogMarkdown } from '@quire/mcp'

/** Writes docs/mcp.md from the tool table (`pnpm docs:mcp`); packages/mcp/test/docs.test.ts fails when it is stale. */
const target = resolve(import.meta.dirname, '../../docs/mcp.md')
writeFileSync(target, toolCatalogMarkdown(compiledTools))
process.stdout.write(`wrote ${target}\n`)
