import { artifactTypes } from '@quire/core/contract'
import { artifactPositional } from './derive.ts'
import type { CommandSpec, Fields } from './types.ts'

/*
 * The commands of the CLI's own: signing in and out, publishing a file, editing an artifact in
 * $EDITOR, opening it in the browser, the MCP server over stdio, the catalog and completion.
 * Each has a handler module under commands/ (loaded only when it runs).
 */

const artifactId = { name: 'artifact-id', type: 'string', description: 'Artifact id (art_…), if not given as OWNER/PROJECT/SLUG' } as const

export const login: CommandSpec = {
  path: ['login'],
  summary: 'Sign in through the browser (OAuth, PKCE) and keep the token in the OS credential store; with --token-stdin, store that token',
  operation: null,
  options: [],
  mutates: true,
  output: 'object',
  handler: 'login',
  examples: ['quire login', 'printf %s "$QUIRE_KEY" | quire login --token-stdin'],
}

export const logout: CommandSpec = {
  path: ['logout'],
  summary: 'Revoke and forget the stored credential for the base URL',
  operation: null,
  options: [],
  mutates: true,
  output: 'object',
  handler: 'logout',
}

const sourceNames: Readonly<Record<string, string>> = {
  flag: '--token',
  stdin: '--token-stdin',
  env: 'AGENT_SERVICE_TOKEN',
  keyring: 'the OS credential store',
}

/** `quire auth status` for people, as `gh auth status` reads: who, from where, and the store. */
function authSummary(value: Fields): string {
  const user = value.user as { username: string; email: string } | null
  const store = value.store as { backend: string; reachable: boolean; error?: string; stored: boolean | null; storedKind: string | null }
  const from = sourceNames[String(value.source)] ?? String(value.source)
  const credential =
    value.source === 'none'
      ? `Not signed in to ${String(value.baseUrl)}: no credential.`
      : value.valid === true && user
        ? `Signed in to ${String(value.baseUrl)} as ${user.username} (${user.email}), with a ${String(value.kind)} from ${from}${value.expiresAt ? `, until ${String(value.expiresAt)}` : ''}.`
        : value.valid === false
          ? `The credential from ${from} was refused by ${String(value.baseUrl)} (${String(value.problem)}).`
          : `A credential from ${from}, ${String(value.problem ?? 'not checked')}.`
  const kept = !store.reachable
    ? `not reachable${store.error ? ` (${store.error})` : ''}`
    : store.stored
      ? `holds a ${store.storedKind ?? 'token'} for this base URL`
      : 'holds nothing for this base URL'
  return [credential, `OS credential store (${store.backend}): ${kept}.`, ...(value.hint ? [String(value.hint)] : [])].join('\n')
}

export const authStatus: CommandSpec = {
  path: ['auth', 'status'],
  summary: 'Show which credential would be used and where it comes from (never the secret)',
  operation: null,
  options: [],
  mutates: false,
  output: 'object',
  handler: 'authStatus',
  says: authSummary,
}

/** Publishing a file (the file rules are core's: domain/file-rules.ts, shared with the web's upload). */
export const push: CommandSpec = {
  path: ['push'],
  summary: 'Publish a file: create the artifact, or append a version when it exists',
  operation: 'createArtifact',
  options: [
    { name: 'owner', type: 'string', required: true, description: 'Owner namespace (username or workspace slug)' },
    { name: 'project-slug', type: 'string', required: true, description: 'Project slug' },
    { name: 'file', type: 'string', required: true, file: true, description: 'The file to publish (- for standard input, with --slug)' },
    { name: 'slug', type: 'string', description: "Artifact slug (default: from the file's name)" },
    { name: 'title', type: 'string', description: 'Title (default: the first Markdown heading, else the file name)' },
    { name: 'type', type: 'string', description: "Artifact type (default: from the file's extension)", choices: artifactTypes },
    { name: 'changelog', type: 'string', description: 'What changed (default: "Pushed <file name>")' },
    { name: 'public', type: 'boolean', description: 'Make a new artifact publicly viewable (default: private)' },
  ],
  mutates: true,
  output: 'object',
  handler: 'push',
  says: (value) =>
    `${value.action === 'created' ? 'Created' : value.action === 'appended' ? 'Updated' : 'Unchanged:'} ${String(value.url)} version ${String(value.version)}`,
  examples: [
    'quire push --owner ada --project-slug notes --file plan.md',
    'cat plan.md | quire push --owner ada --project-slug notes --file - --slug plan',
  ],
}

export const edit: CommandSpec = {
  path: ['artifact', 'edit'],
  summary: 'Edit the latest content in $EDITOR and append it as a new version (refused if someone else got there first)',
  operation: null,
  positionals: [artifactPositional],
  options: [artifactId, { name: 'changelog', type: 'string', description: 'What changed (default: "Edited with quire")' }],
  mutates: true,
  output: 'object',
  handler: 'edit',
  says: (value) =>
    value.action === 'unchanged' ? `Unchanged: ${String(value.url)}` : `Updated ${String(value.url)} version ${String(value.version)}`,
  examples: [
    'quire artifact edit ada/notes/plan',
    'EDITOR="code --wait" quire artifact edit ada/notes/plan --changelog "Tighten the intro"',
  ],
}

export const open: CommandSpec = {
  path: ['artifact', 'open'],
  summary: "Open the artifact's page in the browser (the URL is printed too)",
  operation: null,
  positionals: [artifactPositional],
  options: [artifactId],
  mutates: false,
  output: 'object',
  handler: 'open',
  says: (value) => String(value.url),
  examples: ['quire artifact open ada/notes/plan'],
}

/** Where a watch starts: after this event id, else from now on. */
const after = {
  name: 'after',
  type: 'string',
  description: 'Start after this event id (the N of "resume with --after N"); default: from now on',
  example: '41',
} as const

/**
 * `quire artifact watch` and `quire project watch`: follow the changes as they happen, a long poll
 * of `listEvents` after another (commands/watch.ts) until Ctrl-C, reconnecting after the last
 * event when the connection drops.
 */
export const artifactWatch: CommandSpec = {
  path: ['artifact', 'watch'],
  summary: "Follow an artifact's changes as they happen, a line each (JSON: an object a line), until Ctrl-C",
  operation: 'listEvents',
  positionals: [artifactPositional],
  options: [artifactId, after],
  mutates: false,
  output: 'stream',
  handler: 'watch',
  examples: [
    'quire artifact watch ada/notes/plan',
    'quire artifact watch ada/notes/plan --after 41 --format json',
    'quire artifact watch ada/notes/plan --jq \'select(.kind == "artifact.version_created") | .versionNumber\'',
  ],
}

export const projectWatch: CommandSpec = {
  path: ['project', 'watch'],
  summary: "Follow the changes to a project's artifacts as they happen, a line each (JSON: an object a line), until Ctrl-C",
  operation: 'listEvents',
  positionals: [{ name: 'project', kind: 'id', flag: 'project', description: "The project: OWNER/PROJECT or the project's URL" }],
  options: [
    {
      name: 'project',
      type: 'string',
      required: true,
      description: "The project: OWNER/PROJECT or the project's URL",
      example: 'ada/notes',
    },
    after,
  ],
  mutates: false,
  output: 'stream',
  handler: 'watch',
  examples: ['quire project watch ada/notes', 'quire project watch ada/notes --after 41 --format json > changes.ndjson'],
}

/**
 * `quire mcp`: the MCP server of `@quire/mcp` (the same 26 tools as the web app's `/mcp`) over
 * stdio, for MCP hosts that launch local servers. It calls no one operation of its own: each tool
 * call is a REST call made with the CLI's credential, named `mcp` in the audit trail.
 */
export const mcp: CommandSpec = {
  path: ['mcp'],
  summary:
    'Serve the Quire MCP tools over stdio (for MCP hosts that launch local servers), calling the API with the credential other commands use',
  operation: null,
  options: [],
  // The tools change things, but not this command: the host's calls do (and --dry-run cannot apply to them).
  mutates: false,
  output: 'object',
  handler: 'mcp',
  examples: ['quire mcp', 'AGENT_SERVICE_TOKEN="$QUIRE_KEY" quire mcp --base-url https://api.quire.example'],
}

export const schema: CommandSpec = {
  path: ['schema'],
  summary: 'Print the machine-readable catalog of commands, flags, environment variables and exit codes',
  operation: null,
  options: [],
  mutates: false,
  output: 'object',
  handler: 'schema',
}

/** The shells `quire completion` writes a script for (commands/completion.ts). */
export const completionShells = ['bash', 'zsh', 'fish'] as const

export const completion: CommandSpec = {
  path: ['completion'],
  summary: 'Print a shell completion script (bash, zsh or fish)',
  operation: null,
  positionals: [{ name: 'shell', kind: 'id', flag: 'shell', description: completionShells.join(', ') }],
  options: [{ name: 'shell', type: 'string', choices: completionShells, description: 'The shell (default: from $SHELL)' }],
  mutates: false,
  output: 'object',
  handler: 'completion',
  examples: [
    'quire completion bash > ~/.local/share/bash-completion/completions/quire',
    'quire completion fish > ~/.config/fish/completions/quire.fish',
  ],
}
