import type { Workspace } from '../contract/schemas/workspace.ts'
import type { Caller } from '../domain/principal.ts'
import type { Failure, Result } from '../domain/result.ts'
import { ok } from '../domain/result.ts'
import { admitAccount } from './access.ts'
import { workspaceResource } from './artifact-gate.ts'
import { permissionsOn } from './artifact-permissions.ts'
import type { CoreDeps } from './deps.ts'
import { presentWorkspace } from './workspaces.ts'

/** What may be started in a namespace: the actions the create forms offer. */
export const namespacePermissionActions = ['project.create', 'artifact.create', 'artifact.access.write'] as const

export type NamespacePermissionAction = (typeof namespacePermissionActions)[number]

/** A workspace the caller belongs to, and what the caller may start in it. */
export interface NamespacePermissions {
  readonly workspace: Workspace
  /** Whether the caller may take each action there (the answer the action's operation would get). */
  readonly may: Readonly<Record<NamespacePermissionAction, boolean>>
  /** For each action the caller may not take, the failure its operation answers with. */
  readonly refusals: Readonly<Partial<Record<NamespacePermissionAction, Failure>>>
}

/** The most workspaces a create form offers; a person in more reaches the others from their pages. */
export const NAMESPACE_PERMISSIONS_LIMIT = 100

/**
 * The workspaces the caller belongs to (the first `NAMESPACE_PERMISSIONS_LIMIT`, as
 * `listWorkspaces` orders them), each with what the one policy says the caller may start there:
 * a project, an artifact, an artifact with access other than the default. The create forms offer
 * owners and fields from this, so the web app holds no rule of its own; the operation each form
 * runs still decides again.
 */
export async function getNamespacePermissions(deps: CoreDeps, caller: Caller): Promise<Result<NamespacePermissions[]>> {
  const account = await admitAccount(deps, caller, 'workspace.read')
  if (!account.ok) return account
  const { principal, userId } = account.value
  const rows = await deps.workspaces.listForUser(userId, { limit: NAMESPACE_PERMISSIONS_LIMIT, after: null })
  return ok(
    rows.slice(0, NAMESPACE_PERMISSIONS_LIMIT).map((row) => ({
      workspace: presentWorkspace(row),
      ...permissionsOn(deps, principal, namespacePermissionActions, workspaceResource(row, row.role)),
    })),
  )
}
