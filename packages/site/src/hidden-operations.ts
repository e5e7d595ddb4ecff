import type { OperationId } from '@quire/core'

/**
 * The operations no web page or form runs, each with the reason. Every other operation is run by a
 * page or a form of this package; check-surfaces (apps/api/test) fails when an operation is
 * neither run here nor listed, or listed and run.
 */
export const hiddenOperations: Readonly<Partial<Record<OperationId, string>>> = {
  checkArtifactSlug: 'the new-artifact form checks a slug with `previewArtifactUrl`, which answers the same and the address besides',
  getArtifactChanges: "an agent's catch-up since a version it saw; people read the same on the history and diff pages",
  resolveProjectPath: 'a project page is found by its path, with its artifacts, in one read (`browseNamespace`)',
  listWorkspaceArtifacts: "the owner and project pages list a namespace's artifacts by path (`browseNamespace`)",
  listEvents:
    'following changes is for programs (SSE, the long poll, `quire … watch`, wait_for_changes); people see the history page, and the audit trail shows every change',
  createWebhook: 'webhooks are set up from the CLI or REST (`quire webhook create`), where the secret shown once can be kept',
  listWebhooks: 'webhooks are managed from the CLI or REST (`quire webhook list`)',
  deleteWebhook: 'webhooks are managed from the CLI or REST (`quire webhook delete`)',
  listWebhookDeliveries: 'the delivery log is read from the CLI or REST (`quire webhook deliveries`)',
  redeliverWebhookDelivery: 'webhooks are managed from the CLI or REST (`quire webhook redeliver`)',
  rotateWebhookSecret: 'a new secret is shown once from the CLI or REST (`quire webhook rotate`)',
  listProjectArtifacts: 'the project page lists its artifacts with the project in one read (`browseNamespace`), by the same rule',
}
