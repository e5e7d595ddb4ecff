import type { CliOverrides } from './derive.ts'
import { noHits, searchColumns } from './search-hits.ts'
import type { Fields } from './types.ts'

/*
 * The commands that call one operation, in the specification's order: for each row of the
 * operation table, what the schemas cannot say. Flags come from the schemas (registry/derive.ts);
 * the spec's flag names that differ from a field's name are renamed here. A row left out, or an
 * id that is not an operation, does not compile; `{ hidden: reason }` would leave one out on
 * purpose (none is), and `{ command, projectFlag }` runs it from another command's flag
 * (`artifact list --project`).
 *
 * `says` is the one line a write prints for people (JSON mode prints the whole result).
 */

const at = (a: Fields) => `${String(a.ownerUsername)}/${String(a.projectSlug)}/${String(a.slug)}`

/** The spec's `--version` for a version number in the path (`params.versionNumber`). */
const version = { 'params.versionNumber': { name: 'version' } } as const

/** An artifact's access settings in words: the line of `access set`, and of its dry run (run/call-operation.ts). */
export const accessInWords = (access: Fields) => {
  const viewers = access.viewerEmails as string[]
  return `${access.publicView ? 'public' : 'private'}${access.publicEdit ? ', anyone signed in may edit' : ''}${viewers.length ? `, viewers ${viewers.join(', ')}` : ''}`
}

/** The columns of the lists that show the same rows from several commands. */
const projectColumns = ['ownerUsername:OWNER', 'slug', 'title', 'url']
const artifactColumns = ['ownerUsername:OWNER', 'projectSlug:PROJECT', 'slug', 'latestVersion:VERSION', 'title', 'updatedAt:UPDATED']
const versionColumns = ['versionNumber:VERSION', 'createdAt:CREATED', 'createdBy.label:BY', 'size', 'changelog']
const auditColumns = ['at:WHEN', 'action', 'actor.label', 'via.surface:VIA', 'artifactId:ARTIFACT']
const eventColumns = ['id', 'at:WHEN', 'path', 'kind', 'versionNumber:VERSION', 'actor.label:BY']

/** What `quire events` says on standard error after its table: where to go on from. */
function eventsNote(value: Fields): string {
  const cursor = String(value.cursor)
  if (value.more) return `More are waiting: add --after ${cursor}.`
  if ((value.events as unknown[]).length === 0)
    return `No events after ${cursor} yet: add --after ${cursor} --wait 30 to wait for one (quire project watch keeps following).`
  return `Next: add --after ${cursor}.`
}

export const operationCommands = {
  health: { command: ['health'], summary: 'Check that the API and its database answer' },
  getProfile: [
    { command: ['whoami'], summary: 'Show who the credential belongs to' },
    { command: ['profile', 'get'], summary: 'Show your profile' },
  ],
  updateProfile: {
    command: ['profile', 'set-username'],
    summary: 'Change your username (renames your personal namespace)',
    says: (value) => `Your username is now ${String(value.username)}.`,
    examples: ['quire profile set-username --username ada'],
  },
  listMyInvitations: {
    command: ['profile', 'invitations'],
    summary: 'List pending invitations to your verified email',
    columns: ['id', 'workspaceSlug:WORKSPACE', 'role', 'expiresAt:EXPIRES'],
  },

  listApiKeys: {
    command: ['keys', 'list'],
    summary: 'List your API keys',
    columns: ['id', 'name', 'prefix', 'scopes', 'status', 'lastUsedAt:LAST USED'],
  },
  createApiKey: {
    command: ['keys', 'create'],
    summary: 'Create an API key (its secret is shown once)',
    says: (value) => `Created API key ${String(value.name)} (${String(value.id)}). Its secret, shown once:\n${String(value.secret)}`,
    examples: ['quire keys create --name ci --scopes artifacts:read,artifacts:create'],
  },
  revokeApiKey: {
    command: ['keys', 'revoke'],
    summary: 'Revoke an API key at once',
    says: (value) => `Revoked API key ${String(value.name)} (${String(value.id)}).`,
    examples: ['quire keys revoke key_01jc0000000000000000000000'],
  },
  listAgents: {
    command: ['agent', 'list'],
    summary: 'List the agents you claimed, with when each was last used',
    columns: ['name', 'id', 'type', 'scopes', 'claimedAt:CLAIMED', 'lastUsedAt:LAST USED', 'revokedAt:REVOKED'],
  },
  revokeAgent: {
    command: ['agent', 'revoke'],
    summary: 'Revoke an agent: every token of it stops at once',
    says: (value) => `Revoked agent ${String(value.name)} (${String(value.id)}); its tokens no longer work.`,
  },

  listMyProjects: {
    command: ['project', 'list'],
    summary: 'List your projects',
    columns: projectColumns,
  },
  createProject: {
    command: ['project', 'create'],
    summary: 'Create a project',
    json: true,
    says: (value) => `Created project ${String(value.ownerUsername)}/${String(value.slug)}: ${String(value.url)}`,
    examples: [
      'quire project create --owner-username ada --slug notes --title Notes --icon 📝',
      'quire project create --json \'{"ownerUsername":"ada","slug":"notes","title":"Notes","icon":"📝"}\'',
    ],
  },
  checkProjectSlug: {
    command: ['project', 'slug-availability'],
    summary: 'Check whether a project slug is free',
    examples: ['quire project slug-availability --owner ada --slug notes'],
  },

  listWorkspaces: {
    command: ['workspace', 'list'],
    summary: 'List the workspaces you belong to',
    columns: ['id', 'slug', 'name', 'role', 'plan'],
  },
  createWorkspace: {
    command: ['workspace', 'create'],
    summary: 'Create a team workspace',
    json: true,
    says: (value) => `Created workspace ${String(value.slug)} (${String(value.id)}).`,
    examples: ['quire workspace create --slug acme --name "Acme Inc."'],
  },
  listWorkspaceMembers: {
    command: ['workspace', 'members'],
    summary: "List a workspace's members",
    columns: ['username', 'email', 'role', 'joinedAt:JOINED'],
  },
  listWorkspaceProjects: {
    command: ['workspace', 'projects'],
    summary: "List a workspace's projects",
    columns: projectColumns,
  },
  listWorkspaceArtifacts: {
    command: ['workspace', 'artifacts'],
    summary: "List the artifacts of a workspace's projects",
    columns: artifactColumns,
  },
  createInvitation: {
    command: ['workspace', 'invite'],
    summary: 'Invite someone by email',
    json: true,
    says: (value) => `Invited ${String(value.email)} to ${String(value.workspaceSlug)} as ${String(value.role)} (${String(value.id)}).`,
    examples: ['quire workspace invite ws_01jc0000000000000000000000 --email bob@example.com --role admin'],
  },
  listInvitations: {
    command: ['workspace', 'invitations'],
    summary: "List a workspace's invitations",
    columns: ['id', 'email', 'role', 'status', 'expiresAt:EXPIRES'],
  },
  revokeInvitation: {
    command: ['workspace', 'revoke-invite'],
    summary: 'Revoke a pending invitation',
    says: (value) => `Revoked the invitation of ${String(value.email)}.`,
  },
  acceptInvitation: {
    command: ['workspace', 'accept-invite'],
    summary: 'Accept an invitation to your verified email',
    says: (value) => `You joined ${String(value.workspaceSlug)} as ${String(value.role)}.`,
  },
  listWorkspaceAuditEvents: {
    command: ['workspace', 'audit'],
    summary: "List a workspace's audit events",
    columns: auditColumns,
  },

  listMyArtifacts: {
    command: ['artifact', 'list'],
    summary: 'List your artifacts',
    columns: artifactColumns,
    examples: ['quire artifact list', 'quire artifact list --format json --fields url,latestVersion', 'quire artifact list --ndjson'],
  },
  listProjectArtifacts: {
    command: ['artifact', 'list'],
    projectFlag: 'project',
    examples: [
      'quire artifact list --project ada/notes',
      'quire artifact list --project ada/notes --limit 10 --format json --fields slug,url',
    ],
  },
  createArtifact: {
    command: ['artifact', 'create'],
    summary: 'Create an artifact with its first version (quire push does this from a file)',
    json: true,
    flags: { 'body.content': { file: true } },
    says: (value) => `Created ${at(value)} version ${String(value.latestVersion)}: ${String(value.url)}`,
    examples: [
      'quire artifact create --owner-username ada --project-slug notes --slug plan --type md --title Plan --content-file plan.md --changelog "First draft"',
      'quire artifact create --json @artifact.json',
    ],
  },
  getArtifact: {
    command: ['artifact', 'get'],
    aliases: ['view'],
    summary: 'Show an artifact',
    examples: ['quire artifact get ada/notes/plan', 'quire artifact get --artifact-id art_01jc0000000000000000000000'],
  },
  appendVersion: {
    command: ['artifact', 'update'],
    summary: 'Append a version with new content',
    json: true,
    flags: { 'body.content': { file: true } },
    says: (value, named) => `Appended version ${String(value.versionNumber)} to ${named ?? String(value.artifactId)}.`,
    examples: [
      'quire artifact update ada/notes/plan --content-file plan.md --expected-latest-version 3',
      'quire artifact update ada/notes/plan --json @version.json',
      'cat plan.md | quire artifact update ada/notes/plan --content-file - --expected-latest-version 3 --changelog "Fix typos"',
    ],
  },
  restoreVersion: {
    command: ['artifact', 'restore'],
    flags: version,
    says: (value, named) =>
      `Restored version ${String(value.restoredFrom)} of ${named ?? String(value.artifactId)} as version ${String(value.versionNumber)}.`,
    examples: ['quire artifact restore ada/notes/plan --version 2'],
  },
  deleteArtifact: {
    command: ['artifact', 'delete'],
    summary: 'Delete an artifact (soft delete; its audit trail stays readable by its owner)',
    says: (value, named) => `Deleted ${named ?? String(value.id)}; its owner can still read its audit trail.`,
    examples: ['quire artifact delete ada/notes/plan --yes'],
  },
  getContent: {
    command: ['artifact', 'content'],
    summary: 'Print the content of the latest version, or of --version N',
    textField: 'content',
    examples: ['quire artifact content ada/notes/plan', 'quire artifact content ada/notes/plan --version 2 > plan-v2.md'],
  },
  listVersions: {
    command: ['artifact', 'versions'],
    summary: "List an artifact's versions",
    columns: versionColumns,
    examples: ['quire artifact versions ada/notes/plan'],
  },
  diffVersions: {
    command: ['artifact', 'diff'],
    summary: 'Print the unified diff between two versions',
    textField: 'diff',
    examples: ['quire artifact diff ada/notes/plan --from 1 --to 2'],
  },
  getArtifactChanges: {
    command: ['artifact', 'changes'],
    summary: 'Catch up: the versions after --since, then the diff from it to the latest',
    columns: versionColumns,
    report: {
      list: 'versions.items',
      diff: 'diff',
      note: (value) => {
        const notes: string[] = []
        const page = value.versions as { nextCursor: string | null }
        if (page.nextCursor) notes.push(`Older versions: add --cursor ${page.nextCursor}.`)
        if (value.diffTruncated)
          notes.push(
            `The diff was cut at 256 KiB (of ${String(value.diffBytes)} bytes); the whole of it: quire artifact diff ${String(value.artifactId)} --from ${String(value.sinceVersion)} --to ${String(value.latestVersion)}.`,
          )
        if (!page.nextCursor && (value.sinceVersion as number) === (value.latestVersion as number))
          notes.push(`Nothing changed since version ${String(value.sinceVersion)}.`)
        return notes.length ? notes.join('\n') : null
      },
    },
    examples: ['quire artifact changes ada/notes/plan --since 3', 'quire artifact changes ada/notes/plan --since 3 --format json'],
  },
  checkArtifactSlug: {
    command: ['artifact', 'slug-availability'],
    summary: 'Check whether an artifact slug is free in a project',
    examples: ['quire artifact slug-availability --owner ada --project-slug notes --slug plan'],
  },
  previewArtifactUrl: {
    command: ['artifact', 'url-preview'],
    summary: 'Show the URL an artifact would get',
    examples: ['quire artifact url-preview --owner ada --project-slug notes --slug plan'],
  },
  getArtifactAccess: { command: ['artifact', 'access', 'get'], summary: "Show an artifact's access settings" },
  updateArtifactAccess: {
    command: ['artifact', 'access', 'set'],
    json: true,
    says: (value) => `Access: ${accessInWords(value)}.`,
    examples: [
      'quire artifact access set ada/notes/plan --public-view',
      'quire artifact access set ada/notes/plan --no-public-view --viewer-emails bob@example.com',
    ],
  },

  searchArtifacts: {
    command: ['search'],
    summary: 'Search what you may read: titles, descriptions and content, best match first',
    flags: { 'query.q': { name: 'query', words: true } },
    columns: searchColumns,
    empty: noHits,
    examples: [
      'quire search deploy checklist',
      'quire search \'"deploy checklist" -staging\' --project ada/runbooks',
      'quire search -- deploy -draft',
      'quire search ERR_CONN_RESET --type md --versions all',
      "quire search deploy --format json --jq '.items[].artifact.url'",
    ],
  },

  resolveProjectPath: { command: ['path', 'project'], summary: 'Find a project by its path' },
  resolveArtifactPath: {
    command: ['path', 'artifact'],
    summary: 'Find an artifact by its path',
    examples: ['quire path artifact --owner ada --project-slug notes --slug plan'],
  },

  createShareLink: {
    command: ['share', 'create'],
    summary: 'Create a share link (its URL is shown once)',
    says: (value) =>
      `Share link ${String(value.id)} (${String(value.role)}${value.expiresAt ? `, until ${String(value.expiresAt)}` : ''}), shown once:\n${String(value.url)}`,
    examples: ['quire share create ada/notes/plan --role viewer --expires-at 2026-12-31T23:59:59Z'],
  },
  listShareLinks: {
    command: ['share', 'list'],
    summary: "List an artifact's share links",
    columns: ['id', 'role', 'status', 'prefix', 'expiresAt:EXPIRES', 'createdAt:CREATED'],
  },
  revokeShareLink: {
    command: ['share', 'revoke'],
    summary: 'Revoke a share link at once',
    says: (value) => `Revoked share link ${String(value.id)}.`,
  },

  listAuditEvents: {
    command: ['audit', 'list'],
    summary: "List audit events: an artifact's, or your account's",
    columns: auditColumns,
    examples: ['quire audit list ada/notes/plan', 'quire audit list --action artifact.deleted'],
  },

  listEvents: {
    command: ['events'],
    summary: 'List the changes after an event id: of an artifact, a project or a workspace',
    columns: eventColumns,
    report: { list: 'events', note: eventsNote },
    examples: [
      'quire events --project ada/notes --wait 30',
      'quire events --artifact ada/notes/plan --after 41',
      "quire events --workspace ws_01jc0000000000000000000000 --after 41 --limit 500 --jq '.events[].path'",
    ],
  },

  createWebhook: {
    command: ['webhook', 'create'],
    summary: "Deliver an artifact's or a project's changes to a URL, signed (the secret is shown once)",
    says: (value) => {
      const hook = value.webhook as Fields
      return `Created webhook ${String(hook.id)} to ${String(hook.url)}; a ping is on its way. Its signing secret, shown once:\n${String(value.secret)}`
    },
    examples: [
      'quire webhook create --url https://example.com/quire --project ada/notes',
      'quire webhook create --url https://example.com/quire --artifact ada/notes/plan --events artifact.version_created',
    ],
  },
  listWebhooks: {
    command: ['webhook', 'list'],
    summary: 'List your webhooks',
    columns: ['id', 'url', 'artifactId:ARTIFACT', 'projectId:PROJECT', 'status', 'statusReason:WHY', 'createdAt:CREATED'],
  },
  listWebhookDeliveries: {
    command: ['webhook', 'deliveries'],
    summary: "A webhook's delivery log, newest first",
    columns: ['id', 'kind', 'eventId:EVENT', 'status', 'attempts.length:ATTEMPTS', 'nextAttemptAt:NEXT', 'createdAt:CREATED'],
    examples: ['quire webhook deliveries whk_01jc0000000000000000000000 --format json'],
  },
  redeliverWebhookDelivery: {
    command: ['webhook', 'redeliver'],
    summary: 'Send a delivery again now (the same message id)',
    says: (value) => `Delivery ${String(value.id)} is due again now.`,
  },
  rotateWebhookSecret: {
    command: ['webhook', 'rotate'],
    summary: 'Give a webhook a new signing secret (shown once); the old one stops signing at once',
    says: (value) =>
      `Rotated the secret of webhook ${String((value.webhook as Fields).id)}. The new one, shown once:\n${String(value.secret)}`,
  },
  deleteWebhook: {
    command: ['webhook', 'delete'],
    summary: 'Delete a webhook: nothing more is delivered',
    says: (value) => `Deleted webhook ${String(value.id)}.`,
  },
} as const satisfies CliOverrides
