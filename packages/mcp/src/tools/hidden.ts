import type { OperationId } from '@quire/core'

const notInSpec = 'not one of the spec\'s 22 tools (SPEC "MCP")'

/**
 * The operations no tool runs, each with the reason. The tool set is the spec's; these stay on
 * REST, the CLI and the web app. (check-surfaces fails when an operation is neither run by a tool
 * nor listed here.)
 */
export const hiddenOperations: Readonly<Partial<Record<OperationId, string>>> = {
  health: `a load balancer's probe, ${notInSpec}`,
  updateProfile: `renaming the account moves every URL under it: a person's decision (web, CLI); ${notInSpec}`,
  listMyInvitations: `invitations are accepted by a signed-in person (web, CLI); ${notInSpec}`,
  listApiKeys: `credentials are managed by people, not by an agent through a credential; ${notInSpec}`,
  createApiKey: `an agent minting credentials for itself defeats scoping; ${notInSpec}`,
  revokeApiKey: `credentials are managed by people, not by an agent through a credential; ${notInSpec}`,
  listAgents: `people manage their agents, not an agent through a credential; ${notInSpec}`,
  revokeAgent: `people manage their agents, not an agent through a credential; ${notInSpec}`,
  createWorkspace: `a team namespace with a plan is a person's decision (web, CLI); ${notInSpec}`,
  listWorkspaceMembers: `membership is managed by people (web, CLI); ${notInSpec}`,
  listWorkspaceProjects: `list_projects lists the projects of every workspace; ${notInSpec}`,
  createInvitation: `sharing a workspace with a person is a person's decision (web, CLI); ${notInSpec}`,
  listInvitations: `membership is managed by people (web, CLI); ${notInSpec}`,
  revokeInvitation: `membership is managed by people (web, CLI); ${notInSpec}`,
  acceptInvitation: `the invitee's own consent, given signed in (web, CLI); ${notInSpec}`,
  listWorkspaceAuditEvents: `list_audit_events covers an artifact's and the account's trail; ${notInSpec}`,
  checkArtifactSlug: `create_artifact answers slug_taken with free slugs (its \`dryRun\` too), and resolve_path tells whether a path exists; ${notInSpec}`,
  createWebhook: `a webhook sends what its owner may read to a URL: a person's decision (CLI, REST); an agent waits with wait_for_changes; ${notInSpec}`,
  listWebhooks: `webhooks are managed by people (CLI, REST); ${notInSpec}`,
  deleteWebhook: `webhooks are managed by people (CLI, REST); ${notInSpec}`,
  listWebhookDeliveries: `webhooks are managed by people (CLI, REST); ${notInSpec}`,
  redeliverWebhookDelivery: `webhooks are managed by people (CLI, REST); ${notInSpec}`,
  rotateWebhookSecret: `a secret shown once belongs to the person setting up the receiver (CLI, REST); ${notInSpec}`,
  previewArtifactUrl: `create_artifact returns the URL (with \`dryRun\`, before anything is written); ${notInSpec}`,
}
