/** A global flag, as the specification lists them (plus --yes on destructive commands). */
export interface GlobalFlagSpec {
  readonly name: string
  readonly type: 'string' | 'boolean'
  readonly description: string
  readonly env?: string
  readonly choices?: readonly string[]
}

export const defaultBaseUrl = 'http://127.0.0.1:3000'

export const globalFlags: readonly GlobalFlagSpec[] = [
  { name: 'base-url', type: 'string', env: 'AGENT_SERVICE_BASE_URL', description: `API base URL (default ${defaultBaseUrl})` },
  {
    name: 'web-url',
    type: 'string',
    env: 'AGENT_SERVICE_WEB_URL',
    description: "Web application URL for browser login (default: the API's authorization server)",
  },
  {
    name: 'token',
    type: 'string',
    env: 'AGENT_SERVICE_TOKEN',
    description: 'Bearer token (visible to other processes: prefer --token-stdin)',
  },
  { name: 'token-stdin', type: 'boolean', description: 'Read the bearer token from standard input' },
  { name: 'format', type: 'string', env: 'AGENT_SERVICE_FORMAT', choices: ['json', 'text'], description: 'Output format (default text)' },
  { name: 'ndjson', type: 'boolean', description: 'Stream list results as NDJSON, one object per line, across all pages' },
  { name: 'quiet', type: 'boolean', description: 'Suppress progress messages on standard error' },
  { name: 'no-input', type: 'boolean', env: 'AGENT_SERVICE_NO_INPUT', description: 'Never prompt, never open a browser (=1)' },
  { name: 'debug', type: 'boolean', env: 'AGENT_SERVICE_DEBUG', description: 'Print stack traces and requests, credentials redacted (=1)' },
  {
    name: 'dry-run',
    type: 'boolean',
    description:
      'Preview a mutating command: create, update, restore, access set, push and edit ask the server, which checks everything and writes nothing; the others print the request and send nothing',
  },
  { name: 'version', type: 'boolean', description: 'Print the client version' },
  // Beside the spec's flags, as gh and clig.dev have them:
  {
    name: 'fields',
    type: 'string',
    description: 'Only these fields of each result, comma-separated (dotted for nested: actor.label), e.g. url,latestVersion',
  },
  { name: 'jq', type: 'string', description: 'Filter the JSON result with a jq expression (implies --format json), e.g. .items[].url' },
  { name: 'no-color', type: 'boolean', env: 'NO_COLOR', description: 'No colour, even on a terminal' },
]
