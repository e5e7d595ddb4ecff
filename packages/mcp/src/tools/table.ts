import { Type } from 'typebox'
import { defineTool, type ToolSpec } from './define.ts'

/** The most content one `get_artifact_content` call returns: 256 KiB of UTF-8 (about 64k tokens at most). */
export const CONTENT_WINDOW_BYTES = 256 * 1024

const page = { limit: 'query.limit', cursor: 'query.cursor' } as const
const retrySafe = { idempotencyKey: 'idempotencyKey' as const }
/** A write the server can dry-run: `dryRun: true` checks everything and writes nothing. */
const previewable = { dryRun: 'query.dryRun' as const }

/**
 * THE tool table: the 22 tools of the spec ("MCP"), in the spec's order, the catch-up tool of
 * issue 18 (`get_artifact_changes`, after diff_artifact_versions), one project's artifacts of
 * issue 29 (`list_project_artifacts`, after list_workspace_artifacts) and the search of issue 32
 * (`search_artifacts`, after it) and the wait of issue 33 (`wait_for_changes`, after get_artifact_changes):
 * 26 tools, each naming the operation of the operation table it
 * runs. Both transports (Streamable HTTP in the web app,
 * stdio in `quire mcp`) serve exactly these.
 */
export const tools = [
  defineTool({
    name: 'get_current_principal',
    title: 'Who am I',
    description:
      'Returns the account this connection acts for: user id, username (your personal namespace, the `ownerUsername` for your own projects), email, personal workspace id and plan. Call it first to learn which namespace to create projects and artifacts in.',
    operation: 'getProfile',
    fields: {},
  }),
  defineTool({
    name: 'list_workspaces',
    title: 'List workspaces',
    description:
      'Lists the workspaces you belong to (your personal one and team workspaces), with your role in each. A workspace slug is the `ownerUsername` of the projects in it. Paginated: pass `nextCursor` back as `cursor`.',
    operation: 'listWorkspaces',
    fields: {},
    extensions: page,
  }),
  defineTool({
    name: 'list_projects',
    title: 'List projects',
    description:
      'Lists the projects of every workspace you belong to, newest first, with their owner namespace and slug. Use it to find the `ownerUsername` and `projectSlug` for create_artifact. Paginated: pass `nextCursor` back as `cursor`.',
    operation: 'listMyProjects',
    fields: {},
    extensions: page,
  }),
  defineTool({
    name: 'create_project',
    title: 'Create a project',
    description:
      'Creates a project in a namespace you may write to (`ownerUsername`: your username or a team workspace slug). Check the slug first with check_project_slug_availability. Returns the project.',
    operation: 'createProject',
    fields: {
      ownerUsername: 'body.ownerUsername',
      slug: 'body.slug',
      title: 'body.title',
      icon: 'body.icon',
      description: 'body.description',
    },
    extensions: retrySafe,
  }),
  defineTool({
    name: 'check_project_slug_availability',
    title: 'Check a project slug',
    description:
      'Tells whether a project slug is free in a namespace, and if not, why (taken, reserved or not a valid slug) with up to 3 free alternatives (`suggestions`) when it is taken or reserved. Project slugs are not usernames: `status`, `docs` or `api` are fine. Read-only.',
    operation: 'checkProjectSlug',
    fields: { ownerUsername: 'params.owner', slug: 'params.slug' },
  }),
  defineTool({
    name: 'list_artifacts',
    title: 'List my artifacts',
    description:
      'Lists the artifacts of every workspace you belong to, newest first (by creation): id, owner, project, slug, type, title, latest version and URL. Use the `id` with the other artifact tools. Paginated: pass `nextCursor` back as `cursor`.',
    operation: 'listMyArtifacts',
    fields: {},
    extensions: page,
  }),
  defineTool({
    name: 'list_workspace_artifacts',
    title: 'List artifacts of a workspace',
    description:
      "Lists the artifacts of one workspace's projects (`workspaceId` from list_workspaces), newest first (by creation). Paginated: pass `nextCursor` back as `cursor`.",
    operation: 'listWorkspaceArtifacts',
    fields: { workspaceId: 'params.workspaceId' },
    extensions: page,
  }),
  // Beyond the spec: one project's artifacts (issue 29), beside the workspace's.
  defineTool({
    name: 'list_project_artifacts',
    title: 'List artifacts of a project',
    description:
      'Lists the artifacts of one project that you may read (`ownerUsername`/`projectSlug`, as in its URL https://…/ana/notes), newest first: every one in a workspace you belong to; elsewhere the public ones and those shared with your verified email. A project where you may read nothing is not found, like one that does not exist. Paginated: pass `nextCursor` back as `cursor`.',
    operation: 'listProjectArtifacts',
    fields: { ownerUsername: 'params.owner', projectSlug: 'params.projectSlug' },
    extensions: page,
  }),
  // Beyond the spec: search (issue 32), after the lists it saves paging through.
  defineTool({
    name: 'search_artifacts',
    title: 'Search artifacts',
    description:
      'Finds artifacts by what they say: searches the title, description and content of every artifact you may read (your workspaces\' and those shared with your verified email; not other people\'s merely public ones), best match first. `query` is web-search syntax: words (all must match, in any form), "quoted phrases", -excluded words, `or` between alternatives; identifiers such as ERR_CONN_RESET and Chinese, Japanese or Korean text match as substrings. Narrow with `ownerUsername`, `project` (`OWNER/PROJECT`), `type` and `updatedAfter`; `versions: "all"` searches older versions too (`version` names the one that matched). Each hit is the artifact (its `id`, `url`, `latestVersion`) and up to 3 snippets: segments whose `match: true` text is what the query found, and for content the `line` it starts on. Read a hit with get_artifact_content (or get_artifact for its metadata). Paginated: pass `nextCursor` back as `cursor` with the same query.',
    operation: 'searchArtifacts',
    fields: {
      query: 'query.q',
      ownerUsername: 'query.owner',
      project: 'query.project',
      type: 'query.type',
      updatedAfter: 'query.updatedAfter',
      versions: 'query.versions',
    },
    extensions: page,
  }),
  defineTool({
    name: 'create_artifact',
    title: 'Create an artifact',
    description:
      'Publishes a new document (markdown by default: `type` `md`) in a project, as its version 1, and returns the artifact with its `id` and web `url`. Private unless `access.publicView` is true. Pass an `idempotencyKey` to make a retry safe. A slug already used in the project is refused (`slug_taken`) with up to 3 free slugs (`suggestions`). With `dryRun: true` every check runs (the slug being free included) and nothing is written: the answer names what would be created (`wouldCreate`: its `url`, SHA-256, size and access).',
    operation: 'createArtifact',
    fields: {
      ownerUsername: 'body.ownerUsername',
      projectSlug: 'body.projectSlug',
      slug: 'body.slug',
      type: 'body.type',
      title: 'body.title',
      description: 'body.description',
      content: 'body.content',
      changelog: 'body.changelog',
      access: 'body.access',
    },
    extensions: { ...retrySafe, ...previewable },
  }),
  defineTool({
    name: 'update_artifact',
    title: 'Publish a new version',
    description:
      'Appends a new immutable version with the full new `content`. `expectedLatestVersion` must be the latest version you read (get_artifact): if someone published since, nothing is written and the error names the current version and shows the diff you missed (when your credential may read the content); merge and retry with that number. Returns the new version: its `versionNumber`, SHA-256, size and author. With `dryRun: true` every check runs and nothing is written: the answer names the version it would create (`wouldCreate.versionNumber`, the latest `fromVersion` + 1) and the diff from the latest. To hear when someone else publishes (before you merge, or to react to a reply), use wait_for_changes.',
    operation: 'appendVersion',
    fields: {
      artifactId: 'params.artifactId',
      content: 'body.content',
      changelog: 'body.changelog',
      expectedLatestVersion: 'body.expectedLatestVersion',
    },
    require: ['expectedLatestVersion'],
    extensions: { ...retrySafe, ...previewable },
  }),
  defineTool({
    name: 'restore_artifact_version',
    title: 'Restore a version',
    description:
      'Publishes the content of an earlier version as a new head version (history is kept; nothing is overwritten). Returns the new version, with `restoredFrom` naming the one restored. With `dryRun: true` nothing is written: the answer names the version it would create (`wouldCreate.versionNumber`, the latest `fromVersion` + 1) and the diff from the latest.',
    operation: 'restoreVersion',
    fields: { artifactId: 'params.artifactId', versionNumber: 'params.versionNumber' },
    extensions: { changelog: 'body.changelog', expectedLatestVersion: 'body.expectedLatestVersion', ...retrySafe, ...previewable },
  }),
  defineTool({
    name: 'delete_artifact',
    title: 'Delete an artifact',
    description:
      'Soft-deletes an artifact: its URL and every tool stop finding it. Ask the user before calling. Returns the id and when it was deleted.',
    operation: 'deleteArtifact',
    fields: { artifactId: 'params.artifactId' },
  }),
  defineTool({
    name: 'get_artifact',
    title: 'Read artifact metadata',
    description:
      "Reads an artifact's metadata: owner, project, slug, type, title, description, access switches, `latestVersion` (pass it as `expectedLatestVersion` to update_artifact) and URL. For an HTML, SVG or Mermaid artifact, `previewUrl` is its latest version drawn as its author meant it, a link minted for you that works for anyone until `previewExpiresAt` (at most ten minutes): give it to your person to look at a report or a diagram you published; `url` is the page to send for longer. Not the content: use get_artifact_content.",
    operation: 'getArtifact',
    fields: { artifactId: 'params.artifactId' },
  }),
  defineTool({
    name: 'get_artifact_content',
    title: 'Read artifact content',
    description: `Reads the source text of a version (the latest when \`versionNumber\` is left out), with its version number and SHA-256. At most ${CONTENT_WINDOW_BYTES / 1024} KiB of UTF-8 per call: when \`truncated\` is true, call again with \`offset\` set to \`nextOffset\` and append; the windows joined are the exact content.`,
    operation: 'getContent',
    fields: { artifactId: 'params.artifactId', versionNumber: 'query.version' },
    extensions: {
      offset: {
        schema: Type.Integer({
          minimum: 0,
          default: 0,
          description: 'Where the window starts, in bytes of UTF-8 (the `nextOffset` of the previous call); 0 when left out.',
        }),
      },
    },
  }),
  defineTool({
    name: 'list_artifact_versions',
    title: 'List versions',
    description:
      'Lists the immutable versions of an artifact, newest first: number, changelog, author, credential kind, size, SHA-256, time. `limit` at most 100. Paginated: pass `nextCursor` back as `cursor`.',
    operation: 'listVersions',
    fields: { artifactId: 'params.artifactId', limit: 'query.limit' },
    extensions: { cursor: 'query.cursor' },
  }),
  defineTool({
    name: 'diff_artifact_versions',
    title: 'Diff two versions',
    description:
      'Returns the unified diff between two versions of an artifact (`fromVersion` the old side, `toVersion` the new), with the count of added and removed lines. Use it to see what changed without reading both versions.',
    operation: 'diffVersions',
    fields: { artifactId: 'params.artifactId', fromVersion: 'query.from', toVersion: 'query.to' },
  }),
  defineTool({
    name: 'get_artifact_changes',
    title: 'Catch up on changes',
    description:
      'Everything that changed after the version you last saw (`since`), in one call: the versions after it (newest first: number, changelog, author, time; paginated: pass `nextCursor` back as `cursor` with the same `since`) and the unified diff from `since` to the latest. The diff is cut at 256 KiB when larger (`diffTruncated`; then use diff_artifact_versions on narrower ranges). `since` equal to the latest answers no versions and an empty diff. To wait for the next change instead of calling this again and again, use wait_for_changes.',
    operation: 'getArtifactChanges',
    fields: { artifactId: 'params.artifactId', since: 'query.since' },
    extensions: page,
  }),
  // Beyond the spec: waiting for a change instead of polling (issue 33).
  defineTool({
    name: 'wait_for_changes',
    title: 'Wait for changes',
    description:
      "Waits until something changes in an artifact (`artifact`: its id or `owner/project/slug`) or in a project (`project`: `owner/project`, members only), instead of polling. Returns the events after `after` (oldest first: `kind` such as `artifact.version_created`, the artifact's `id` and `path`, `versionNumber`, `actor`, `at`) as soon as there are any, or none when `timeoutSeconds` (0–30, default 0: just look) pass. Always pass back the answer's `cursor` as `after` on the next call, so nothing is missed or seen twice; leave `after` out the first time to start from now. Events are thin: read what changed with get_artifact_changes (since the version you last saw). You only see events about artifacts you may read.",
    operation: 'listEvents',
    fields: { artifact: 'query.artifact', project: 'query.project', after: 'query.after', timeoutSeconds: 'query.wait' },
    extensions: { limit: 'query.limit' },
  }),
  defineTool({
    name: 'get_artifact_access',
    title: 'Read access settings',
    description:
      'Reads who may see and edit an artifact: `publicView` (anyone may read), `publicEdit` (any signed-in caller may publish versions) and `viewerEmails` (people who may read a private artifact).',
    operation: 'getArtifactAccess',
    fields: { artifactId: 'params.artifactId' },
  }),
  defineTool({
    name: 'set_artifact_access',
    title: 'Change access settings',
    description:
      'Changes who may see and edit an artifact. Only the switches given change; `viewerEmails` replaces the whole list. Making an artifact public exposes it to anyone: ask the user first (`dryRun: true` shows what would change, writing nothing). Returns the new settings, the allowlist included, so it needs `artifacts:access:read` as well as `artifacts:access:write` (the dry run too). Opening the artifact needs what it opens: `publicView` on or a new viewer email `artifacts:read`, `publicEdit` on `artifacts:update`.',
    operation: 'updateArtifactAccess',
    fields: { artifactId: 'params.artifactId', access: 'body' },
    extensions: previewable,
  }),
  defineTool({
    name: 'create_share_link',
    title: 'Create a share link',
    description:
      'Creates a secret link to one artifact (`role` `viewer` by default, or `editor`), optionally expiring at `expiresAt`. Returns the link with its `url` and secret, shown this once: hand it to the user, it cannot be read again. A link never grants more than you may do: it needs `artifacts:share` and `artifacts:read`, and an editor link also `artifacts:update`.',
    operation: 'createShareLink',
    fields: { artifactId: 'params.artifactId', role: 'body.role', expiresAt: 'body.expiresAt' },
    extensions: retrySafe,
  }),
  defineTool({
    name: 'list_share_links',
    title: 'List share links',
    description:
      'Lists the share links of an artifact (never their secrets): id, role, status (active, revoked, expired), expiry and who created them. Paginated: pass `nextCursor` back as `cursor`.',
    operation: 'listShareLinks',
    fields: { artifactId: 'params.artifactId' },
    extensions: page,
  }),
  defineTool({
    name: 'revoke_share_link',
    title: 'Revoke a share link',
    description:
      'Revokes a share link (`shareLinkId` from list_share_links): it stops working at once, for everyone who has it. Revoking a revoked link changes nothing. Returns the link.',
    operation: 'revokeShareLink',
    fields: { shareLinkId: 'params.shareLinkId' },
  }),
  defineTool({
    name: 'list_audit_events',
    title: 'List audit events',
    description:
      "Lists the audit trail, newest first: with `artifactId`, that artifact's events (created, versions, restores, access changes, share links, deletion); without it, your account's events (keys, tokens, sign-ins). Each names the action, the actor, and the surface and credential used. For a deleted artifact (its workspace's owners and admins only), `deletedArtifact` gives its id and when it was deleted. Paginated: pass `nextCursor` back as `cursor`.",
    operation: 'listAuditEvents',
    fields: { artifactId: 'query.artifactId', limit: 'query.limit' },
    extensions: { cursor: 'query.cursor' },
  }),
  defineTool({
    name: 'resolve_path',
    title: 'Resolve a path',
    description:
      'Turns a web path into ids: `ownerUsername`/`projectSlug` resolves the project, and with `slug` the artifact (for a URL like https://…/ana/notes/hello: ownerUsername `ana`, projectSlug `notes`, slug `hello`). Returns `kind` and the project or the artifact.',
    operation: 'resolveArtifactPath',
    without: { field: 'slug', operation: 'resolveProjectPath' },
    fields: { ownerUsername: 'params.owner', projectSlug: 'params.projectSlug', slug: 'params.slug' },
  }),
] as const satisfies readonly ToolSpec[]

export type ToolName = (typeof tools)[number]['name']
