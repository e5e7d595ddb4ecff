import type { Policy } from '../domain/policy.ts'
import type { Limits } from '../domain/rules.ts'
import type { Clock, IdGenerator } from '../ports/runtime.ts'
import type { ArtifactStore, CredentialStore, HealthProbe, IdempotencyStore, ProjectStore } from '../ports/stores.ts'

/** Service-level settings the use-cases need. */
export interface CoreConfig {
  /** Public address of the web app; artifact and project URLs are built from it. */
  readonly webUrl: string
  readonly limits: Limits
  /** The server's version, reported by health. */
  readonly version: string
}

/** Everything a use-case may touch: ports only, wired by the composition root. */
export interface CoreDeps {
  readonly policy: Policy
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly credentials: CredentialStore
  readonly artifacts: ArtifactStore
  readonly projects: ProjectStore
  readonly idempotency: IdempotencyStore
  readonly health: HealthProbe
  readonly config: CoreConfig
}
