import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compiledTools, toolCatalogMarkdown } from '../src/index.ts'

describe('docs/mcp.md', () => {
  it('is the catalog generated from the tool table (run `pnpm docs:mcp` after changing a tool)', () => {
    const file = readFileSync(resolve(import.meta.dirname, '../../../docs/mcp.md'), 'utf8')
    expect(file).toBe(toolCatalogMarkdown(compiledTools))
  })
})
