import type { Health } from '../contract/schemas/health.ts'
import { fail, ok, type Result } from '../domain/result.ts'
import type { CoreDeps } from './deps.ts'

/** Reports whether the service and its database answer. */
export async function checkHealth(deps: CoreDeps): Promise<Result<Health>> {
  try {
    await deps.health.ping()
    return ok({ status: 'ok', database: 'ok', version: deps.config.version })
  } catch {
    return fail('service_unavailable', 'The database does not answer.')
  }
}
