import type { CommandSpec } from '../types.ts'
import { show } from './rows.ts'

/** Where the CLI talks to, as whom, and what it can do. */
export const sessionCommands: readonly CommandSpec[] = [
  show(['health'], 'Check that the API and its database answer', 'health'),
  show(['whoami'], 'Show who the credential belongs to', 'getProfile'),
  {
    path: ['login'],
    summary:
      'Sign in through the browser (OAuth, PKCE) and keep the token in the OS credential store; with --token-stdin, store that token',
    operation: null,
    options: [],
    mutates: true,
    output: 'object',
    handler: 'login',
    examples: ['quire login', 'printf %s "$QUIRE_KEY" | quire login --token-stdin'],
  },
  {
    path: ['logout'],
    summary: 'Revoke and forget the stored credential for the base URL',
    operation: null,
    options: [],
    mutates: true,
    output: 'object',
    handler: 'logout',
  },
  {
    path: ['auth', 'status'],
    summary: 'Show which credential would be used and where it comes from (never the secret)',
    operation: null,
    options: [],
    mutates: false,
    output: 'object',
    handler: 'authStatus',
  },
]

export const schemaCommand: CommandSpec = {
  path: ['schema'],
  summary: 'Print the machine-readable catalog of commands, flags, environment variables and exit codes',
  operation: null,
  options: [],
  mutates: false,
  output: 'object',
  handler: 'schema',
}
