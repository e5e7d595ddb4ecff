import { builtin } from './builtin.ts'

/**
 * The CLI's environment: the one file of the CLI that reads `process.env` (the boundary check
 * enforces it). Names are the specification's.
 */
export interface CliEnvironment {
  readonly baseUrl: string | undefined
  readonly webUrl: string | undefined
  readonly token: string | undefined
  readonly format: string | undefined
  readonly noInput: boolean
  readonly debug: boolean
  /** `NO_COLOR` set and non-empty, or `TERM=dumb`: no colour even on a terminal. */
  readonly noColor: boolean
  /** Where the non-secret credentials file lives (`$XDG_CONFIG_HOME/quire`, else `~/.config/quire`). */
  readonly configDir: string
  /** `BROWSER`: the command `quire login` opens the sign-in page with; `none` (or empty): only print the URL. */
  readonly browser: string | undefined
  /** A graphical session (`DISPLAY` or `WAYLAND_DISPLAY` set): on Linux, no browser is opened without one. */
  readonly hasDisplay: boolean
  /** `VISUAL`, else `EDITOR`: the command `quire artifact edit` opens the text with (a shell command line). */
  readonly editor: string | undefined
  /** `SHELL`: which completion script `quire completion` prints when none is named. */
  readonly shell: string | undefined
}

/** Environment variables the CLI reads, for `quire schema` and `--help`. */
export const environmentVariables = [
  { name: 'AGENT_SERVICE_BASE_URL', flag: '--base-url', description: 'API base URL' },
  { name: 'AGENT_SERVICE_WEB_URL', flag: '--web-url', description: 'web application URL for browser login' },
  { name: 'AGENT_SERVICE_TOKEN', flag: '--token', description: 'bearer token (beats the stored one; --token-stdin/--token beat it)' },
  { name: 'AGENT_SERVICE_FORMAT', flag: '--format', description: 'output format: json or text' },
  { name: 'AGENT_SERVICE_NO_INPUT', flag: '--no-input', description: '1: never prompt, never open a browser' },
  { name: 'AGENT_SERVICE_DEBUG', flag: '--debug', description: '1: print stack traces and HTTP requests (credentials redacted)' },
  { name: 'NO_COLOR', flag: null, description: 'non-empty: no colour' },
  { name: 'XDG_CONFIG_HOME', flag: null, description: 'where quire/credentials.json (non-secret metadata) is kept' },
  {
    name: 'BROWSER',
    flag: null,
    description: 'command quire login opens the sign-in page with; none: only print the URL (Linux needs DISPLAY or WAYLAND_DISPLAY)',
  },
  { name: 'VISUAL', flag: null, description: 'editor quire artifact edit opens (else EDITOR, else vi)' },
  { name: 'EDITOR', flag: null, description: 'editor quire artifact edit opens when VISUAL is unset' },
  { name: 'SHELL', flag: null, description: 'the shell quire completion writes a script for, when none is named' },
] as const

const truthy = (value: string | undefined) => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'
const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim())

/** The CLI's environment from `env` (the process's own when not given). */
export function readEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  home = nonEmpty(env.HOME) ?? builtin<typeof import('node:os')>('node:os').homedir(),
): CliEnvironment {
  return {
    baseUrl: nonEmpty(env.AGENT_SERVICE_BASE_URL),
    webUrl: nonEmpty(env.AGENT_SERVICE_WEB_URL),
    token: nonEmpty(env.AGENT_SERVICE_TOKEN),
    format: nonEmpty(env.AGENT_SERVICE_FORMAT),
    noInput: truthy(env.AGENT_SERVICE_NO_INPUT),
    debug: truthy(env.AGENT_SERVICE_DEBUG),
    noColor: (env.NO_COLOR ?? '') !== '' || env.TERM === 'dumb',
    configDir: `${nonEmpty(env.XDG_CONFIG_HOME) ?? `${home}/.config`}/quire`,
    browser: env.BROWSER === undefined ? undefined : env.BROWSER.trim(),
    hasDisplay: nonEmpty(env.DISPLAY) !== undefined || nonEmpty(env.WAYLAND_DISPLAY) !== undefined,
    editor: nonEmpty(env.VISUAL) ?? nonEmpty(env.EDITOR),
    shell: nonEmpty(env.SHELL),
  }
}
