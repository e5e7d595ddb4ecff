import type { Action } from '../contract/actions.ts'
import type { Grant } from '../domain/policy.ts'
import type { PresentedCredential, Principal } from '../domain/principal.ts'
import type { ArtifactAccess } from './records.ts'

/** A recent decision to let a caller act on an artifact, and what it rested on. */
export interface Admission {
  readonly principal: Principal
  readonly artifact: ArtifactAccess
  readonly grant: Grant
}

/**
 * Recent admissions, so that a caller writing the same artifact again can skip the read that
 * authorised it. Safe because every write carries its grant as a guard that the database
 * re-checks in the same statement: a revoked key, a removed member or a switched-off
 * `publicEdit` makes the write refuse, and the use-case then takes the full path.
 */
export interface AdmissionCache {
  get(credential: PresentedCredential, artifactId: string, action: Action): Admission | undefined
  remember(credential: PresentedCredential, artifactId: string, action: Action, admission: Admission): void
  forget(credential: PresentedCredential, artifactId: string): void
}
