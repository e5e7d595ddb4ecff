import { defineOperation } from '../operation.ts'
import { AuditEvent, AuditQuery } from '../schemas/audit.ts'
import { Page } from '../schemas/common.ts'

export const auditOperations = {
  listAuditEvents: defineOperation({
    method: 'GET',
    path: '/api/audit-events',
    summary: "List an artifact's audit events, or the caller's account-level events, newest first",
    description:
      "With `artifactId`: the artifact's events, for members of its workspace. Without: events the caller performed and events of the caller's personal workspace.",
    tags: ['audit'],
    action: 'audit.read',
    anonymous: false,
    query: AuditQuery,
    success: { status: 200, schema: Page(AuditEvent) },
    errors: ['not_found', 'forbidden', 'insufficient_scope', 'invalid_cursor'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
} as const
