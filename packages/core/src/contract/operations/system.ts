import { defineOperation } from '../operation.ts'
import { Health } from '../schemas/health.ts'

export const systemOperations = {
  health: defineOperation({
    method: 'GET',
    path: '/health',
    summary: 'Check that the service and its database answer',
    tags: ['system'],
    action: null,
    anonymous: true,
    success: { status: 200, schema: Health },
    errors: ['service_unavailable'],
    hints: { readOnly: true, destructive: false, idempotent: true },
  }),
} as const
