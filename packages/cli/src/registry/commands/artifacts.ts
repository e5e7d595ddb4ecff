import { artifactTypes } from '@quire/core/contract'
import type { CommandSpec } from '../types.ts'
import { artifactId, change, jsonFlag, list, owner, projectSlug, show, slugOf } from './rows.ts'

/** Publishing a file (push rules: commands/push-rules.ts). */
export const pushCommand: CommandSpec = {
  path: ['push'],
  summary: 'Publish a file: create the artifact, or append a version when it exists',
  operation: 'createArtifact',
  options: [
    { name: 'owner', type: 'string', required: true, description: 'Owner namespace (username or workspace slug)' },
    { name: 'project-slug', type: 'string', required: true, description: 'Project slug' },
    { name: 'file', type: 'string', required: true, description: 'The file to publish (- for standard input, with --slug)' },
    { name: 'slug', type: 'string', description: "Artifact slug (default: from the file's name)" },
    { name: 'title', type: 'string', description: 'Title (default: the first Markdown heading, else the file name)' },
    { name: 'type', type: 'string', description: "Artifact type (default: from the file's extension)", choices: artifactTypes },
    { name: 'changelog', type: 'string', description: 'What changed (default: "Pushed <file>")' },
    { name: 'public', type: 'boolean', description: 'Make a new artifact publicly viewable (default: private)' },
  ],
  mutates: true,
  output: 'object',
  handler: 'push',
  examples: ['quire push --owner ada --project-slug notes --file plan.md'],
}

/** Artifacts, their versions and their access settings. */
export const artifactCommands: readonly CommandSpec[] = [
  list(['artifact', 'list'], 'List your artifacts', 'listMyArtifacts', [
    'id',
    'ownerUsername',
    'projectSlug',
    'slug',
    'latestVersion',
    'title',
  ]),
  change(['artifact', 'create'], 'Create an artifact with its first version', 'createArtifact', [
    jsonFlag('The artifact (see the API docs for createArtifact)'),
  ]),
  show(['artifact', 'get'], 'Show an artifact', 'getArtifact', [artifactId]),
  change(['artifact', 'update'], 'Append a version ({content, changelog?, expectedLatestVersion})', 'appendVersion', [
    artifactId,
    jsonFlag('The version ({content, changelog?, expectedLatestVersion})'),
  ]),
  change(['artifact', 'restore'], 'Restore version N as a new head version', 'restoreVersion', [
    artifactId,
    { name: 'version', type: 'number', required: true, description: 'The version to restore', to: 'params.versionNumber' },
    {
      name: 'expected-latest-version',
      type: 'number',
      description: 'Refuse if the artifact has moved past this version',
      to: 'body.expectedLatestVersion',
    },
    { name: 'changelog', type: 'string', description: 'What the restore is for', to: 'body.changelog' },
  ]),
  change(['artifact', 'delete'], 'Delete an artifact (soft delete)', 'deleteArtifact', [artifactId]),
  {
    ...show(['artifact', 'content'], 'Print the content of the latest version, or of --version N', 'getContent', [
      artifactId,
      { name: 'version', type: 'number', description: 'A version number (default: the latest)', to: 'query.version' },
    ]),
    textField: 'content',
  },
  list(
    ['artifact', 'versions'],
    "List an artifact's versions",
    'listVersions',
    ['versionNumber', 'createdAt', 'size', 'changelog'],
    [artifactId],
  ),
  {
    ...show(['artifact', 'diff'], 'Print the unified diff between two versions', 'diffVersions', [
      artifactId,
      { name: 'from', type: 'number', required: true, description: 'From version', to: 'query.from' },
      { name: 'to', type: 'number', required: true, description: 'To version', to: 'query.to' },
    ]),
    textField: 'diff',
  },
  show(['artifact', 'slug-availability'], 'Check whether an artifact slug is free in a project', 'checkArtifactSlug', [
    owner,
    projectSlug,
    slugOf('Artifact'),
  ]),
  show(['artifact', 'url-preview'], 'Show the URL an artifact would get', 'previewArtifactUrl', [owner, projectSlug, slugOf('Artifact')]),
  show(['artifact', 'access', 'get'], "Show an artifact's access settings", 'getArtifactAccess', [artifactId]),
  change(
    ['artifact', 'access', 'set'],
    "Change an artifact's access settings ({publicView?, publicEdit?, viewerEmails?})",
    'updateArtifactAccess',
    [artifactId, jsonFlag('The change ({publicView?, publicEdit?, viewerEmails?})')],
  ),
]
