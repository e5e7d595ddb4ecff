import { actions, type Scope, scopes } from '@quire/core'
import { agentLifetimes, agentPaths } from './constants.ts'
import type { AgentContext } from './context.ts'
import { type AgentEndpoint, type AgentErrorInfo, agentErrors } from './errors.ts'
import { duration, fence, json, span, tick } from './markdown.ts'
import { enabledTypes } from './metadata.ts'

/**
 * The reference part of `/auth.md`, after the steps: every error, what a missing scope answers,
 * the retry policy, the lifetimes, the scopes and the security rules. It changes with the error
 * catalogue, the scopes and the lifetimes; the steps change with the protocol's flow.
 */

const endpointNames: Record<AgentEndpoint, string> = {
  identity: `POST ${agentPaths.identity}`,
  claim: `POST ${agentPaths.claim}`,
  scopes: `POST ${agentPaths.scopeRequest}`,
  token: `POST ${agentPaths.token}`,
  revoke: `POST ${agentPaths.revoke}`,
  selfRevoke: `DELETE ${agentPaths.identity}`,
}

/** Every (endpoint, code) pair the error table lists: the test checks the document against this. */
export function documentedErrors(): { endpoint: AgentEndpoint; code: string; info: AgentErrorInfo }[] {
  return (Object.keys(agentErrors) as AgentEndpoint[]).flatMap((endpoint) =>
    Object.entries(agentErrors[endpoint] as Record<string, AgentErrorInfo>).map(([code, info]) => ({ endpoint, code, info })),
  )
}

/** What each scope lets a token do, in words (the actions it gates come from the action table). */
export const scopeSummaries: Record<Scope, string> = {
  'artifacts:read': 'Read artifacts, their versions and diffs, projects, workspaces and audit trails the person can see.',
  'artifacts:create': 'Create artifacts, projects and team workspaces.',
  'artifacts:update': 'Append new versions, restore old ones, and change the username (the namespace in every URL).',
  'artifacts:delete': 'Delete artifacts (soft delete).',
  'artifacts:share': 'Create and revoke share links; invite people to workspaces.',
  'artifacts:access:read': "Read an artifact's access settings and a workspace's member list.",
  'artifacts:access:write': "Change an artifact's access settings (public view, public edit, viewer emails).",
  'agents:manage': "List, create and revoke the person's API keys and agents.",
  'webhooks:write': 'Create, list, rotate and delete webhooks that deliver changes of what the person can read to a URL.',
}

/** The reference sections, as lines of Markdown, with this deployment's URLs, scopes and lifetimes. */
export function referenceSections(ctx: AgentContext): string[] {
  const web = ctx.urls.webUrl
  const url = (path: string) => `${web}${path}`
  const anonymous = enabledTypes(ctx).includes('anonymous')
  const allowed = ctx.settings.allowedScopes
  const preClaim = ctx.settings.preClaimScopes
  const life = agentLifetimes
  const errorRows = documentedErrors().map(
    ({ endpoint, code: error, info }) =>
      `| ${tick(error)} | ${info.status} | ${tick(endpointNames[endpoint])} | ${info.meaning} | ${info.action} |`,
  )
  const scopeRows = scopes.map((scope) => {
    const gated = Object.entries(actions)
      .filter(([, a]) => a.scope === scope)
      .map(([name]) => tick(name))
      .join(', ')
    const here = allowed.includes(scope) ? 'yes' : 'no'
    const pre = preClaim.includes(scope) ? 'yes' : 'no'
    return `| ${tick(scope)} | ${scopeSummaries[scope]} | ${gated} | ${here} | ${anonymous ? pre : 'n/a'} |`
  })
  const lifetimeRows = [
    ['Claim window (`claim_token`; an unclaimed agent and all its credentials die after it)', life.claimWindowSeconds],
    ['User code (`user_code`)', life.userCodeSeconds],
    ['First polling `interval` (each `slow_down` adds 5 s)', life.pollIntervalSeconds],
    ['Anonymous identity assertion (never past the claim window)', life.anonymousAssertionSeconds],
    ['Pre-claim access token (never past the claim window)', life.preClaimTokenSeconds],
    ['Post-claim access token', life.postClaimTokenSeconds],
    ['Post-claim identity assertion (returned by the claim grant)', life.postClaimAssertionSeconds],
  ].map(([what, seconds]) => `| ${what} | ${duration(seconds as number)} |`)

  return [
    '## Errors',
    '',
    `Every error body is ${tick('{"error": "<code>", "error_description": "<what went wrong>"}')}. Read ${tick('error')}, not the description (its words may change).`,
    '',
    '| `error` | HTTP | Where | Meaning | What to do |',
    '|---|---|---|---|---|',
    ...errorRows,
    '',
    'The claim page (for the person, not for you) answers: not signed in → the sign-in page, then back; an unknown code → 404; an expired code → 410; a code that was already confirmed → the unknown page; another account → 403 "wrong account"; too many wrong codes → 429.',
    '',
    '## When a scope is missing',
    '',
    `A 403 ${tick('insufficient_scope')} for your token (REST problem body; at ${tick(url(agentPaths.mcp))} a tool result with ${tick('isError: true')}, never an HTTP error; in the CLI the hint line) carries ${tick('handOff')}: what you can do next. Do not retry the call unchanged.`,
    '',
    `${fence}json`,
    json({
      code: 'insufficient_scope',
      scope: 'artifacts:access:write',
      handOff: {
        kind: 'person',
        scope: 'artifacts:access:write',
        url: `${web}/ada/status/weekly/settings`,
        instruction: `Please change who may read it yourself at ${web}/ada/status/weekly/settings: agents cannot hold \`artifacts:access:write\` on this Quire.`,
      },
    }),
    fence,
    '',
    `- ${tick('"kind": "step_up"')}: the scope is one your person may grant you (it is allowed here, see Scopes). POST ${tick(url(agentPaths.scopeRequest))} with your access token and ${tick('{"scopes": "<scope>"}')}, show your person the link and code it answers with, as in Step 4, and exchange your assertion again once they confirm (Step 5): the new token carries it (the request, its answers and the polling: "More scopes (step-up)" in Step 6). ${tick('personUrl')} is the page where the person could do the action themselves instead.`,
    `- ${tick('"kind": "person"')}: no agent may hold the scope on this deployment. ${tick('url')} is the web page where your person does the action (for a share link or public access: the artifact's settings page); relay ${tick('instruction')} to them, word for word.`,
    `- Over MCP, the tools you can never use here are not listed, and the server's instructions on ${tick('initialize')} name them and why.`,
    '',
    '## Retry policy',
    '',
    '- Network errors and 5xx: retry with exponential backoff (1 s, 2 s, 4 s … at most 60 s between tries, at most 5 tries); registration is not idempotent, so after a lost answer to a registration, register again rather than guess.',
    `- 429 ${tick('rate_limited')}: wait the seconds in ${tick('Retry-After')}, then retry once.`,
    `- Other 4xx: never repeat the same request unchanged. The only repeated requests are the polls of the claim grant and of a scope request (${tick('authorization_pending')}, ${tick('slow_down')}).`,
    '- 401 from the API: exchange your assertion once; if that fails, start again at Step 1.',
    '',
    '## Lifetimes',
    '',
    '| What | Lifetime |',
    '|---|---|',
    ...lifetimeRows,
    '',
    '## Scopes',
    '',
    `"Allowed here": whether this deployment lets an agent hold the scope. ${anonymous ? '"Pre-claim": whether an anonymous agent\'s tokens carry it before the claim.' : 'Anonymous agents are not enabled here.'}`,
    '',
    '| Scope | Allows | Actions it gates | Allowed here | Pre-claim |',
    '|---|---|---|---|---|',
    ...scopeRows,
    '',
    'Reading your own profile needs no scope.',
    '',
    '## Security',
    '',
    `- ${tick('claim_token')}, identity assertions and access tokens are secrets. You receive each once: hold them in memory only, never write them to logs, prompts or messages; show the person the code and the link, never the tokens. Quire itself keeps only their SHA-256 hashes and cannot show them again.`,
    `- If you work through a shell whose commands cannot share memory (each one a new process), keep a secret in a file only you can read, mode 0600, and delete it when you are done: ${tick('umask 077; secrets=$(mktemp)')} before the first write (mktemp makes it 0600), ${tick('rm -f "$secrets"')} at the end, also when you stop early. Never pass a secret as a command-line argument of a long-running process, and never put it in the shell history.`,
    `- Send secrets only to the URLs above (HTTPS in production). Put tokens in the ${tick('Authorization')} header or a form body, never in a URL.`,
    '- Only the person you named can confirm the claim, signed in with that verified email. Never ask them for their password or a session cookie, and never confirm a claim yourself.',
    `- A user code is short-lived (${span(life.userCodeSeconds)}) and single-use; a new claim request replaces it. Everything ends with the claim window (${span(life.claimWindowSeconds)}) unless the person confirms.`,
    '- Ask for the fewest scopes you need, and revoke tokens you no longer use.',
    '',
  ]
}
