import { defineOperation } from '../operation.ts'
import { AuditQuery, AuditTrailPage } from '../schemas/audit.ts'

export const auditOperations = {
  listAuditEvents: defineOperation({
    method: 'GET',
    path: '/api/audit-events',
    summary: "List an artifact's audit events, or the caller's account-level events, newest first",
    description:
      "With `artifactId`: the artifact's events, for members of its workspace. Once the artifact is soft-deleted, its trail stays readable by those who could delete it (the workspace's owners and admins), with `deletedArtifact` set; to everyone else it is a 404, as for an artifact that never existed. Without `artifactId`: events the caller performed and events of the caller's personal workspace.",
    tags: ['audit'],
    action: 'audit.read',
    anonymous: false,
    query: AuditQuery,
    success: { status: 200, schema: AuditTrailPage },
    errors: ['not_found', 'forbidden', 'insufficient_scope', 'invalid_cursor'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
} as const
