import type { Policy } from '../domain/policy.ts'
import type { Limits } from '../domain/rules.ts'
import type { CoreStores } from '../ports/core-stores.ts'
import type { PreviewLinks } from '../ports/previews.ts'
import type { Clock, IdGenerator, Sha256 } from '../ports/runtime.ts'
import type { WebhookSecurity } from '../ports/webhooks.ts'
import type { AgentLayerConfig } from './hand-off.ts'

/** Service-level settings the use-cases need. */
export interface CoreConfig {
  /** Public address of the web app; artifact and project URLs are built from it. It is also the OAuth issuer. */
  readonly webUrl: string
  /** Public address of the REST API: the resource its OAuth tokens are bound to. */
  readonly apiUrl: string
  readonly limits: Limits
  /** The server's version, reported by health. */
  readonly version: string
  /** The agent registration layer, when it is on: what an agent's scope failure offers it (`withHandOff`). */
  readonly agents?: AgentLayerConfig
}

/** Everything a use-case may touch: ports only, wired by the composition root. */
export interface CoreDeps extends CoreStores {
  readonly policy: Policy
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly sha256: Sha256
  readonly config: CoreConfig
  /** What a webhook may target, and each webhook's signing secret (the runtime's, with its server key). */
  readonly webhookSecurity: WebhookSecurity
  /** Capabilities for the content origin, where HTML, SVG and Mermaid are rendered; absent or null: none is configured (they are shown as source). */
  readonly previews?: PreviewLinks | null
}
