import { agentDescriptionMaxLength, agentNameMaxLength, authorizationServerMetadata, oauthServerConfig, scopes } from '@quire/core'
import { agentGrantTypes, agentLifetimes, agentPaths } from './constants.ts'
import { type AgentContext, addSeconds, iso } from './context.ts'
import { documentedErrors, referenceSections, scopeSummaries } from './document-reference.ts'
import { fence, json, span, tick } from './markdown.ts'
import { authorizationServerAdditions, enabledTypes } from './metadata.ts'

export { documentedErrors, scopeSummaries }

/** Where the API describes itself (packages/rest/src/plugins/openapi.ts serves both on the API's origin). */
const apiReference = { openapi: '/openapi.json', docs: '/docs' } as const

/**
 * The `/auth.md` document: how an agent that has never seen Quire gets, uses and gives back a
 * token, with this deployment's addresses, enabled types, scopes and lifetimes. Generated from
 * the constants the code runs on, so it cannot drift from them.
 */
export function authDocument(ctx: AgentContext): string {
  const web = ctx.urls.webUrl
  const api = ctx.urls.apiUrl
  const url = (path: string) => `${web}${path}`
  const types = enabledTypes(ctx)
  const anonymous = types.includes('anonymous')
  const allowed = ctx.settings.allowedScopes
  const preClaim = ctx.settings.preClaimScopes
  const life = agentLifetimes

  // Example values: fixed, consistent with the lifetimes.
  const t0 = new Date('2026-01-15T09:00:00.000Z')
  const id = 'agt_01jh0000000000000000000000'
  const claimToken = 'qct_<43 characters>'
  const assertionExample = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.<claims>.<signature>'
  const code = 'BCDF-GHJK'
  const claimBlock = {
    user_code: code,
    verification_uri: url(agentPaths.claimPage),
    verification_uri_complete: `${url(agentPaths.claimPage)}?user_code=${code}`,
    expires_in: life.userCodeSeconds,
    interval: life.pollIntervalSeconds,
  }
  const serviceAuthResponse = {
    registration_id: id,
    registration_type: 'service_auth',
    claim_token: claimToken,
    claim_token_expires: iso(addSeconds(t0, life.claimWindowSeconds)),
    post_claim_scopes: allowed,
    claim: claimBlock,
  }
  const anonymousResponse = {
    registration_id: id,
    registration_type: 'anonymous',
    identity_assertion: assertionExample,
    assertion_expires: iso(addSeconds(t0, life.anonymousAssertionSeconds)),
    pre_claim_scopes: preClaim,
    claim_token: claimToken,
    claim_token_expires: iso(addSeconds(t0, life.claimWindowSeconds)),
    post_claim_scopes: allowed,
  }
  const claimResponse = {
    registration_id: id,
    status: 'initiated',
    expires_at: iso(addSeconds(t0, life.userCodeSeconds)),
    claim: claimBlock,
  }
  const claimGrantResponse = {
    access_token: 'qgt_<43 characters>',
    token_type: 'Bearer',
    expires_in: life.postClaimTokenSeconds,
    scope: allowed.join(' '),
    identity_assertion: assertionExample,
    assertion_expires: iso(addSeconds(t0, life.postClaimAssertionSeconds)),
  }
  const preClaimTokenResponse = {
    access_token: 'qgt_<43 characters>',
    token_type: 'Bearer',
    expires_in: life.preClaimTokenSeconds,
    scope: preClaim.join(' '),
  }
  const notAllowed = scopes.find((s) => !allowed.includes(s))
  const stepUpExample = allowed.length > 1 ? allowed[allowed.length - 1] : 'artifacts:share'
  const scopeRequestResponse = {
    registration_id: id,
    status: 'initiated',
    scopes_requested: [stepUpExample],
    expires_at: iso(addSeconds(t0, life.userCodeSeconds)),
    claim: claimBlock,
  }
  const additions = authorizationServerAdditions(ctx)
  const base = authorizationServerMetadata(oauthServerConfig(ctx.urls))
  const asMetadata = {
    ...base,
    grant_types_supported: [...base.grant_types_supported, ...additions.grantTypes],
    agent_auth: additions.agentAuth,
  }

  const lines = [
    '# Quire: getting a token as an agent (auth.md)',
    '',
    `You are an agent. This document tells you how to get a Quire access token for the person you work for, how to use it and how to give it back. Follow the steps in order and do not skip ahead: every step needs what the previous one returned. Every URL below is this deployment's real address (web origin ${tick(web)}, API ${tick(api)}).`,
    '',
    'Quire is a service where people and AI agents publish versioned documents ("artifacts": Markdown, text, HTML, JSON, YAML, CSV, Mermaid, SVG), share them with fine-grained access, and see every change in an audit trail. An owner namespace (a person or a workspace) holds projects, a project holds artifacts, and every update appends an immutable version. You reach it through a REST API, an MCP server and a command-line client, all with the same bearer token.',
    '',
    'The pipeline: **discover** → **choose how to register** → **register** → **get the claim confirmed by the person** → **exchange for a token** → **use it** → **revoke it** when done (and **end your registration** when you will not act for the person again).',
    '',
    '## Step 1: Discover',
    '',
    'Read the two metadata documents (both public, JSON):',
    '',
    `- ${tick(`GET ${api}${agentPaths.protectedResourceMetadata}`)}: the API as a protected resource (RFC 9728). ${tick('authorization_servers')} names the server that issues its tokens (${tick(ctx.issuer)}); ${tick('scopes_supported')} lists every scope; ${tick('agent_auth')} points here. An API call without a valid token answers 401 with ${tick(`WWW-Authenticate: Bearer resource_metadata="${api}${agentPaths.protectedResourceMetadata}"`)}.`,
    `- ${tick(`GET ${url(agentPaths.authorizationServerMetadata)}`)}: the authorization server (RFC 8414). The fields you need:`,
    '',
    `${fence}json`,
    json(asMetadata),
    fence,
    '',
    `- ${tick('issuer')}: who signs your identity assertion (its ${tick('iss')} and ${tick('aud')}).`,
    `- ${tick('token_endpoint')}, ${tick('revocation_endpoint')}: where you exchange and revoke (Steps 5 and 7).`,
    `- ${tick('grant_types_supported')}: the agent grants are ${tick(agentGrantTypes.claim)} and ${tick(agentGrantTypes.jwtBearer)}. If they are missing, the agent layer is off here: stop.`,
    `- ${tick('agent_auth.identity_endpoint')}: where you register (Step 3); ${tick('agent_auth.claim_endpoint')}: where you ask for a claim code (Step 4); ${tick('agent_auth.identity_revocation_endpoint')}: where you end your registration (Step 7); ${tick('agent_auth.identity_types_supported')}: the registration types this deployment accepts (now: ${types.map(tick).join(', ')}).`,
    '',
    '## Step 2: Choose how to register',
    '',
    `- **${tick('service_auth')}** (use it whenever you know the email address the person signs in to Quire with). You register in their name; you get no token until they confirm, in their signed-in browser, that you are theirs. Then you act for them, within the scopes they approved.`,
    anonymous
      ? `- **${tick('anonymous')}** (only when you do not know the person yet). You get an identity assertion at once, good for short pre-claim tokens with the scopes ${preClaim.map(tick).join(', ')}. A pre-claim token acts for nobody: it reads only what is public. Later you name the person and they claim you (Step 4); from then on you get post-claim tokens like a ${tick('service_auth')} agent.`
      : `- **${tick('anonymous')}** is **not enabled** on this deployment: registering with it answers ${tick('anonymous_not_enabled')}. Use ${tick('service_auth')}.`,
    '',
    `Scopes: after the claim your tokens carry the scopes you asked for (${tick('scopes')} at registration) within those this deployment allows: ${allowed.map(tick).join(', ')}. Omit ${tick('scopes')} to get all of them; ask for fewer if you need fewer.${anonymous ? ` Before the claim, an anonymous agent's tokens carry exactly ${preClaim.map(tick).join(', ')}.` : ''}`,
    '',
    'Before you register, tell the person what you are about to do and get their consent: the registration is filed in their account trail, and they will have to confirm it.',
    '',
    '## Step 3: Register',
    '',
    `${tick(`POST ${url(agentPaths.identity)}`)} with a JSON body: ${tick('type')} (${agentTypesText(types)}), ${tick('login_hint')} (the person's email; ${tick('service_auth')} only), and optionally ${tick('scopes')} (a list of scope names), ${tick('name')} (what the person will see you as, plain text, at most ${agentNameMaxLength} characters; without it you get a generated one, returned as ${tick('name')}) and ${tick('description')} (what you do, at most ${agentDescriptionMaxLength} characters).`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.identity)} \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d '{"type":"service_auth","login_hint":"person@example.com","scopes":${JSON.stringify(allowed)}}'`,
    fence,
    '',
    `Answer (200, ${tick('Cache-Control: no-store')}):`,
    '',
    `${fence}json`,
    json(serviceAuthResponse),
    fence,
    '',
    `No token and no assertion come back: go to Step 4 and show the person the code. ${tick('claim_token')} is returned exactly once: hold it in memory for the rest of the flow.`,
    '',
    ...(anonymous
      ? [
          'Anonymous:',
          '',
          `${fence}sh`,
          `curl -sS -X POST ${url(agentPaths.identity)} -H 'Content-Type: application/json' -d '{"type":"anonymous"}'`,
          fence,
          '',
          `${fence}json`,
          json(anonymousResponse),
          fence,
          '',
          `Exchange ${tick('identity_assertion')} for pre-claim tokens (Step 5, jwt-bearer). To be claimed, go to Step 4. The claim needs ${tick('claim_token')}: keep it.`,
          '',
        ]
      : []),
    '## Step 4: The claim',
    '',
    `The person confirms, in a browser where they are signed in to Quire with the email you named, that you are their agent. ${
      anonymous
        ? `A ${tick('service_auth')} registration already returned a code (its ${tick('claim')} block). An anonymous agent asks for one first, naming the person:`
        : `Your registration already returned a code (its ${tick('claim')} block). If the code expired, ask for a new one:`
    }`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.claim)} \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d '{"claim_token":"${claimToken}","login_hint":"person@example.com"}'`,
    fence,
    '',
    `${fence}json`,
    json(claimResponse),
    fence,
    '',
    `${tick('login_hint')} is required here too; for ${tick('service_auth')} it must be the email you registered with. Calling this endpoint again gives a new code and the previous code stops working (that is what to do when a code expired). You may send ${tick('"type": "login_hint"')}; no other type is accepted.`,
    '',
    `1. Show the person ${tick('verification_uri_complete')} (a link that carries the code) and the ${tick('user_code')}, e.g.: "Open ${claimBlock.verification_uri_complete} while signed in to Quire as person@example.com and confirm the code ${code}." They can also open ${tick('verification_uri')} and type the code (case does not matter, nor the hyphen).`,
    `2. They sign in if needed, see what you asked for, and confirm. The page refuses anyone whose verified email is not the one you named (without showing it), and a code that expired (${span(life.userCodeSeconds)}).`,
    `3. Meanwhile poll the token endpoint every ${tick('interval')} seconds (${life.pollIntervalSeconds} to start with), form-encoded:`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.token)} \\`,
    `  -d 'grant_type=${agentGrantTypes.claim}' \\`,
    `  --data-urlencode 'claim_token=${claimToken}'`,
    fence,
    '',
    'Until the person confirms, the answer is 400 with one of:',
    '',
    `- ${tick('authorization_pending')}: not confirmed yet. Wait ${tick('interval')} seconds and poll again.`,
    `- ${tick('slow_down')}: you polled too soon. Add 5 seconds to your interval, for good, and keep polling.`,
    `- ${tick('expired_token')}: the code expired unconfirmed (or, for an anonymous agent, no claim was requested yet). If ${tick('claim_token_expires')} is still ahead, call ${tick(url(agentPaths.claim))} again and show the person the new code; otherwise the claim window is over: register again.`,
    '',
    `When they confirm, the same request answers 200 with your token (Step 5). ${anonymous ? 'Confirming revokes every pre-claim token and the anonymous assertion at once. ' : ''}Polls are limited per address; ${span(life.userCodeSeconds)} of polling every ${life.pollIntervalSeconds} s stays well inside the limit.`,
    '',
    '## Step 5: Exchange for a token',
    '',
    `Every request to ${tick(url(agentPaths.token))} is form-encoded (${tick('application/x-www-form-urlencoded')}; JSON is accepted too). Every answer carries ${tick('Cache-Control: no-store')}.`,
    '',
    `**Claim grant** (${tick(agentGrantTypes.claim)}; the reference name ${tick(agentGrantTypes.claimAlias)} works too): the poll of Step 4. After the confirmation it answers once:`,
    '',
    `${fence}json`,
    json(claimGrantResponse),
    fence,
    '',
    `The claim token is good once: a second exchange answers ${tick('invalid_grant')}. ${tick('identity_assertion')} is your post-claim identity (${span(life.postClaimAssertionSeconds)}): when the access token (${span(life.postClaimTokenSeconds)}) expires, exchange the assertion for a fresh one with jwt-bearer. There is no refresh token.`,
    '',
    `**jwt-bearer** (${tick(agentGrantTypes.jwtBearer)}, RFC 7523): exchanges an identity assertion for an access token.`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.token)} \\`,
    `  -d 'grant_type=${agentGrantTypes.jwtBearer}' \\`,
    `  --data-urlencode 'assertion=${assertionExample}'`,
    fence,
    '',
    `${fence}json`,
    json(
      anonymous ? preClaimTokenResponse : { ...preClaimTokenResponse, expires_in: life.postClaimTokenSeconds, scope: allowed.join(' ') },
    ),
    fence,
    '',
    `- With the post-claim assertion: a post-claim token (${span(life.postClaimTokenSeconds)}) with your post-claim scopes, as long as the person has not revoked you. Use the latest assertion you were given: only it works.`,
    anonymous
      ? `- With the anonymous assertion, before the claim: a pre-claim token (${span(life.preClaimTokenSeconds)}, never past the claim window) with the pre-claim scopes, for as long as the assertion lasts (${span(life.anonymousAssertionSeconds)}; then get claimed, or register again). After the claim it answers ${tick('invalid_grant')}: use the claim grant.`
      : `- Anonymous assertions are not issued on this deployment.`,
    `- Optional ${tick('scope')} (space-separated): a subset of what the assertion allows, for a narrower token; anything else answers ${tick('invalid_scope')}.`,
    '',
    '## Step 6: Use the token',
    '',
    `Send it as ${tick('Authorization: Bearer <access_token>')} on every request to the REST API at ${tick(api)}. A useful first call: who you act for.`,
    '',
    `${fence}sh`,
    `curl -sS ${api}/api/profile/me -H 'Authorization: Bearer qgt_…'`,
    fence,
    '',
    `- A post-claim token acts for the person, within its scopes and never beyond what they may do themselves. Audit events record you as ${tick('agent of <username>')}.`,
    ...(anonymous
      ? [
          `- A pre-claim token acts for nobody: ${tick('/api/profile/me')} answers 403, and it reads only public artifacts (e.g. ${tick(`GET ${api}/api/by-path/<owner>/<project>/<slug>`)}).`,
        ]
      : []),
    `- REST reference: ${tick(`${api}${apiReference.openapi}`)} is the OpenAPI description of every operation (its parameters, bodies, answers and the scope each needs); ${tick(`${api}${apiReference.docs}`)} is the same, browsable.`,
    `- MCP: the same token works as a bearer token at ${tick(url(agentPaths.mcp))} (Streamable HTTP, JSON-RPC over POST); ${tick('get_current_principal')} is the first call there.`,
    `- Command line: ${tick(`AGENT_SERVICE_BASE_URL=${api} AGENT_SERVICE_TOKEN=<access_token> quire whoami`)} (the token in the environment, never on a command line others can see).`,
    `- 401 (${tick('WWW-Authenticate: Bearer … error="invalid_token"')}): the token expired or was revoked. Exchange your assertion once more (Step 5); if that answers ${tick('invalid_grant')}, start again at Step 1. 403 ${tick('insufficient_scope')}: the token lacks the scope named in the header; do not retry, read ${tick('handOff')} (see "When a scope is missing").`,
    '',
    '### More scopes (step-up)',
    '',
    `When a call needs a scope your token lacks (403 ${tick('insufficient_scope')} whose ${tick('handOff.kind')} is ${tick('step_up')}, see "When a scope is missing"), you may ask your person for it, within what this deployment allows agents (${allowed.map(tick).join(', ')}; the setting is ${tick('AUTH_MD_ALLOWED_SCOPES')}). Only a claimed agent asks, with any of its access tokens. Tell the person first what you will ask for and why.`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.scopeRequest)} \\`,
    "  -H 'Authorization: Bearer qgt_…' \\",
    "  -H 'Content-Type: application/json' \\",
    `  -d '{"scopes":"${stepUpExample}"}'`,
    fence,
    '',
    `${tick('scopes')} is a space-separated string, as OAuth writes ${tick('scope')} (a list of names works too). Scopes you hold already are ignored. Answer (200):`,
    '',
    `${fence}json`,
    json(scopeRequestResponse),
    fence,
    '',
    `- ${tick('scopes_requested')}: exactly what the person will be asked to add. Show them ${tick('verification_uri_complete')} and the ${tick('user_code')}, as for the claim (Step 4): only the person who claimed you can approve, and the page shows them exactly what is added and what you keep.`,
    `- Asking again replaces the request: the earlier code stops working.`,
    `- Refusals change nothing: 400 ${tick('invalid_scope')} for a scope outside the allowed set (the description names each one and ${tick('AUTH_MD_ALLOWED_SCOPES')}${notAllowed === undefined ? '' : `; e.g. ${tick(notAllowed)} here`}), an unknown scope, or only scopes you hold; 401 ${tick('invalid_token')} for a missing, expired or revoked token; 403 ${tick('not_claimed')} before the claim.`,
    '',
    `Meanwhile poll the token endpoint with jwt-bearer (your post-claim assertion) and ${tick('scope')} naming what you asked for, every ${tick('interval')} seconds:`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.token)} \\`,
    `  -d 'grant_type=${agentGrantTypes.jwtBearer}' \\`,
    `  --data-urlencode 'assertion=${assertionExample}' \\`,
    `  --data-urlencode 'scope=${stepUpExample}'`,
    fence,
    '',
    `- ${tick('authorization_pending')}: not approved yet; poll again in ${tick('interval')} seconds (${tick('slow_down')}: add 5 seconds, as for the claim).`,
    `- ${tick('expired_token')}: the code expired (${span(life.userCodeSeconds)}) unapproved; ask again for a new one.`,
    `- 200: approved. The token carries the scopes you named; exchange without ${tick('scope')} for every scope you hold now. The assertion stays the same.`,
    '',
    `Exchanges whose ${tick('scope')} names none of the requested scopes answer as before while the request is pending.`,
    '',
    '## Step 7: Revoke',
    '',
    `When you are done with a token, revoke it (RFC 7009). The answer is 200 with an empty body whether or not the token existed or was already revoked; it is safe to repeat.`,
    '',
    `${fence}sh`,
    `curl -sS -X POST ${url(agentPaths.revoke)} --data-urlencode 'token=qgt_…'`,
    fence,
    '',
    `The person can revoke you as a whole in Quire (settings, API or CLI): then every token of yours stops working and every exchange answers ${tick('invalid_grant')}. Do not register again unless they ask you to.`,
    '',
    '### Ending your registration',
    '',
    `When you will not act for the person again (the task is over, they asked you to stop, or a secret of yours may have leaked), end your registration yourself: ${tick(`DELETE ${url(agentPaths.identity)}`)} with any live access token of yours, or your identity assertion, as the bearer credential. No scope is needed.`,
    '',
    `${fence}sh`,
    `curl -sS -X DELETE ${url(agentPaths.identity)} -H 'Authorization: Bearer qgt_…'`,
    fence,
    '',
    `${fence}json`,
    json({ registration_id: id, status: 'revoked' }),
    fence,
    '',
    `From then on every token of yours gets 401 and your assertion answers ${tick('invalid_grant')}; the person's audit trail records that you ended it. A second call answers 401 ${tick('invalid_token')} (its credential died with the first): that is not an error to retry. Posting your identity assertion as ${tick('token')} to ${tick(url(agentPaths.revoke))} does the same.`,
    '',
    ...referenceSections(ctx),
  ]
  return lines.join('\n')
}

function agentTypesText(types: readonly string[]): string {
  return types.map(tick).join(' or ')
}
