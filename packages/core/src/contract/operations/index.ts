import type { OperationSpec } from '../operation.ts'
import { agentOperations } from './agents.ts'
import { apiKeyOperations } from './api-keys.ts'
import { artifactOperations } from './artifacts.ts'
import { auditOperations } from './audit.ts'
import { eventOperations } from './events.ts'
import { profileOperations } from './profile.ts'
import { projectOperations } from './projects.ts'
import { searchOperations } from './search.ts'
import { sharingOperations } from './sharing.ts'
import { systemOperations } from './system.ts'
import { versionOperations } from './versions.ts'
import { webhookOperations } from './webhooks.ts'
import { workspaceOperations } from './workspaces.ts'

/**
 * THE operation table. Every REST operation is declared here once; routes, OpenAPI, the typed
 * client, CLI commands and MCP tools are derived from it. Keys are camelCase operation ids.
 */
export const operations = {
  ...systemOperations,
  ...profileOperations,
  ...apiKeyOperations,
  ...agentOperations,
  ...workspaceOperations,
  ...projectOperations,
  ...artifactOperations,
  ...searchOperations,
  ...versionOperations,
  ...sharingOperations,
  ...auditOperations,
  ...eventOperations,
  ...webhookOperations,
} as const satisfies Record<string, OperationSpec>

export type Operations = typeof operations
export type OperationId = keyof Operations

export const operationIds = Object.keys(operations) as OperationId[]
