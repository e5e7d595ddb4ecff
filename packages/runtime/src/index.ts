/**
 * The composition root both apps run on: the configuration schema (`readEnv`), the runtime that
 * wires the database, stores, policy and agent auth (`createRuntime`), the discovery documents,
 * the operator socket and the audit retention schedule. No HTTP here: the edge is
 * `@quire/http-edge`, the REST app `@quire/rest`.
 */
export {
  agentAuthSettings,
  ConfigurationError,
  contentUrlConflict,
  contentUrlOf,
  DEFAULT_CONTENT_PORT,
  type Env,
  listOf,
  localContentUrl,
  readEnv,
  readSettings,
  settingsOrExit,
} from './config.ts'
export { createRuntime, databaseConfig, type Runtime, type RuntimeOptions, startRuntime } from './container.ts'
export { type Discovery, discoveryDocuments } from './discovery.ts'
export { operatorSocketPath, runOperatorCommand, startOperatorSocket } from './operator.ts'
export { PREVIEW_WINDOW_SECONDS, previewLinks, previewPath } from './previews.ts'
export { type AuditPruning, type PruneLog, startAuditPruning } from './retention.ts'
