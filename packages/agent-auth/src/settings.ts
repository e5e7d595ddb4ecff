import { isScope, type Scope, scopes } from '@quire/core'
import type { AgentAuthSettings } from './types.ts'

/** The environment variables the layer reads (the app passes them; this package reads no environment). */
export interface AgentAuthEnv {
  readonly AUTH_MD_ENABLED?: string | undefined
  readonly AUTH_MD_SIGNING_SECRET?: string | undefined
  readonly AUTH_MD_ALLOWED_SCOPES?: string | undefined
  readonly AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES?: string | undefined
}

/** The defaults of the two scope settings (SPEC "Agent registration layer configuration"). */
export const agentAuthDefaults = {
  allowedScopes: ['artifacts:read', 'artifacts:create', 'artifacts:update'],
  preClaimScopes: ['artifacts:read'],
} as const satisfies Record<string, readonly Scope[]>

const minimumKeyBytes = 32
const secretHint = 'e.g. `openssl rand -base64 32` or `openssl rand -hex 32`'

/**
 * The layer's settings from the environment: null when `AUTH_MD_ENABLED` is unset, empty or
 * `false` (the layer is off and nothing else is read). Enabled with a bad setting, it throws an
 * Error whose message is one line naming the setting: the process must refuse to start.
 */
export function parseAgentAuthSettings(env: AgentAuthEnv): AgentAuthSettings | null {
  const enabled = (env.AUTH_MD_ENABLED ?? '').trim()
  if (enabled === '' || enabled === 'false') return null
  if (enabled !== 'true') throw new Error(`AUTH_MD_ENABLED must be true or false; got ${JSON.stringify(enabled)}`)
  const signingKey = signingKeyOf(env.AUTH_MD_SIGNING_SECRET)
  const allowedScopes = scopeList('AUTH_MD_ALLOWED_SCOPES', env.AUTH_MD_ALLOWED_SCOPES, agentAuthDefaults.allowedScopes)
  if (allowedScopes.length === 0) {
    throw new Error(`AUTH_MD_ALLOWED_SCOPES must list at least one scope (comma-separated, from: ${scopes.join(', ')})`)
  }
  const preClaimScopes = scopeList(
    'AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES',
    env.AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES,
    agentAuthDefaults.preClaimScopes,
    {
      noneAllowed: true,
    },
  )
  const outside = preClaimScopes.find((s) => !allowedScopes.includes(s))
  if (outside !== undefined) {
    const which = env.AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES === undefined ? ' (its default)' : ''
    throw new Error(
      `AUTH_MD_ANONYMOUS_PRE_CLAIM_SCOPES${which} has ${outside}, which AUTH_MD_ALLOWED_SCOPES (${allowedScopes.join(',')}) does not allow; pre-claim scopes must be a subset of the allowed ones, or \`none\``,
    )
  }
  return Object.freeze({ signingKey, allowedScopes: Object.freeze(allowedScopes), preClaimScopes: Object.freeze(preClaimScopes) })
}

/**
 * The signing secret as bytes: hex (an even number of hex digits), else base64 or base64url
 * (padding optional). At least 32 bytes, and not a run of one repeated pattern.
 */
function signingKeyOf(raw: string | undefined): Uint8Array {
  const secret = (raw ?? '').trim()
  if (secret === '') {
    throw new Error(
      `AUTH_MD_SIGNING_SECRET is required when AUTH_MD_ENABLED=true: at least 32 random bytes as hex or base64 (${secretHint})`,
    )
  }
  const bytes = decodeSecret(secret)
  if (bytes === null) {
    throw new Error(`AUTH_MD_SIGNING_SECRET must be hex or base64/base64url encoded (${secretHint})`)
  }
  if (bytes.length < minimumKeyBytes) {
    throw new Error(
      `AUTH_MD_SIGNING_SECRET must be at least ${minimumKeyBytes} random bytes (64 hex characters or 43 base64url); got ${bytes.length} byte${bytes.length === 1 ? '' : 's'}`,
    )
  }
  // 32 random bytes hold fewer than 8 distinct values with a probability below 1e-20: this is a placeholder.
  if (new Set(bytes).size < 8) {
    throw new Error(
      `AUTH_MD_SIGNING_SECRET does not look random (${new Set(bytes).size} distinct byte values); generate one (${secretHint})`,
    )
  }
  return bytes
}

function decodeSecret(secret: string): Uint8Array | null {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(secret)) {
    const bytes = new Uint8Array(secret.length / 2)
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(secret.slice(i * 2, i * 2 + 2), 16)
    return bytes
  }
  const standard = secret.replace(/-/g, '+').replace(/_/g, '/')
  const unpadded = standard.replace(/={1,2}$/, '')
  if (!/^[A-Za-z0-9+/]+$/.test(unpadded) || unpadded.length % 4 === 1) return null
  if (standard !== unpadded && standard.length % 4 !== 0) return null
  try {
    const binary = atob(unpadded.padEnd(Math.ceil(unpadded.length / 4) * 4, '='))
    return Uint8Array.from(binary, (c) => c.charCodeAt(0))
  } catch {
    return null
  }
}

/**
 * A comma-separated scope setting: unset takes the default; `none` (when allowed) and an empty
 * value mean no scope. Blanks are dropped, duplicates merged, the order is the scope list's.
 */
function scopeList(name: string, raw: string | undefined, fallback: readonly Scope[], options: { noneAllowed?: boolean } = {}): Scope[] {
  if (raw === undefined) return [...fallback]
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
  if (options.noneAllowed && items.length === 1 && items[0]?.toLowerCase() === 'none') return []
  for (const item of items) {
    if (!isScope(item)) {
      const extra = options.noneAllowed ? ', or `none`' : ''
      throw new Error(`${name} has ${JSON.stringify(item)}, which is not a scope (comma-separated, from: ${scopes.join(', ')}${extra})`)
    }
  }
  return scopes.filter((s) => items.includes(s))
}
