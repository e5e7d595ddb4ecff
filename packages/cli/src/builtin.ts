import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A Node built-in, taken as it is: an ES `import` of one builds a facade that reads every export,
 * lazy getters included (node:util's `TextDecoder`, node:fs/promises' every function), some 1–7 ms
 * of each start measured in bench/cli. `process.getBuiltinModule` is Node 22.3+; before, `require`.
 */
export function builtin<T>(name: `node:${string}`): T {
  return (process.getBuiltinModule?.(name) ?? require(name)) as T
}
