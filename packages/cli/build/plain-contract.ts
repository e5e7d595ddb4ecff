import type { Options } from 'tsup'

type Plugin = NonNullable<Options['esbuildPlugins']>[number]

/** What the CLI and its bundled REST client take from `@quire/core/contract` at run time (the rest are types). */
const values = ['operations', 'operationIds', 'errorCodes', 'secretPrefixes', 'artifactTypes'] as const

/**
 * `@quire/core/contract` as the CLI bundles it: the same values, written at build time as one JSON
 * text, instead of the TypeBox code that builds every schema of the contract on each start (about
 * half of loading a command, bench/cli). The CLI and the client only read the contract (an
 * operation's method, path, schemas as JSON Schema, its scopes; the error codes), never check
 * values against it, so JSON is all of it they use; the build fails if that stops being true.
 */
export function plainContract(): Plugin {
  return {
    name: 'plain-contract',
    setup(build) {
      build.onResolve({ filter: /^@quire\/core\/contract$/ }, () => ({ path: 'contract', namespace: 'plain-contract' }))
      build.onLoad({ filter: /.*/, namespace: 'plain-contract' }, async () => ({ contents: await plainModule(), loader: 'js' }))
    },
  }
}

async function plainModule(): Promise<string> {
  const contract = await import('@quire/core/contract')
  const data: Record<string, unknown> = Object.fromEntries(values.map((name) => [name, contract[name]]))
  data.scopes = Object.fromEntries(contract.operationIds.map((id) => [id, contract.scopesOf(contract.operations[id])]))
  const json = JSON.stringify(data)
  // Nothing may be lost on the way: a function or an undefined value would be, silently.
  const lost = (value: unknown, path: string): string | null => {
    if (typeof value === 'function' || value === undefined) return path
    if (typeof value !== 'object' || value === null) return null
    for (const [key, item] of Object.entries(value)) {
      const at = lost(item, `${path}.${key}`)
      if (at !== null) return at
    }
    return null
  }
  const at = lost(data, 'contract')
  if (at !== null) throw new Error(`plain-contract: ${at} is not JSON; the CLI cannot take the contract as data any more.`)
  const problemType = contract.problemType.toString()
  if (!/^function problemType\(code\) \{\s*return `urn:quire:problem:\$\{code\}`;?\s*\}$/.test(problemType))
    throw new Error(`plain-contract: problemType changed; write it here anew:\n${problemType}`)
  return [
    `const data = JSON.parse(${JSON.stringify(json)});`,
    `export const { ${values.join(', ')} } = data;`,
    `export ${problemType}`,
    // The scopes of an operation of this table, worked out at build time.
    'const scopes = new Map(data.operationIds.map((id) => [data.operations[id], data.scopes[id]]));',
    'export function scopesOf(op) { const held = scopes.get(op); if (!held) throw new Error("scopesOf: not an operation of the table"); return held; }',
  ].join('\n')
}
