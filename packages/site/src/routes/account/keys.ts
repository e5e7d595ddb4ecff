import type { Scope } from '@quire/core'
import { httpStatusOf } from '@quire/http-edge'
import { createdKeyPage, type FormState, keysPage, noticeKey, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../../operate.ts'
import { redirectWithNotice } from './notice-redirect.ts'
import { isFormRefusal, refuse, refusedForm } from './refusals.ts'
import { cursorOf, field, fields, idempotencyKeyOf, newFormKey, pageQuery, single } from './request-values.ts'
import { sendPage, signedIn } from './signed-in.ts'

/** Keys on one page of the list. */
const KEYS_PAGE_SIZE = 50

const rules = {
  name: { path: '/body/name', rule: 'Give the key a name of 1–100 characters.' },
  scopes: { path: '/body/scopes', rule: 'Choose at least one scope.' },
  expires: { path: '/body/expiresAt', rule: 'Enter a date as YYYY-MM-DD, or leave it empty.' },
}

/**
 * The expiry field (a date) as the operation's `expiresAt`: the end of that day in UTC; absent
 * when empty. Anything that is not a real date goes on as typed, for the operation to refuse.
 */
function expiresAtOf(date: string): string | undefined {
  if (date === '') return undefined
  const end = `${date}T23:59:59.999Z`
  const parsed = new Date(end)
  return /^\d{4}-\d\d-\d\d$/.test(date) && !Number.isNaN(parsed.getTime()) && parsed.toISOString() === end ? end : date
}

/** The keys page, with the create form as refused (or fresh). */
async function showKeys(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  refused: { form: FormState; scopes: readonly string[]; status: number } | null,
) {
  const session = signedIn(request, reply, webRoutes.apiKeys.path())
  if (!session) return reply
  const cursor = refused ? undefined : cursorOf(request, reply)
  if (cursor === null) return reply
  const keys = await operate(runtime, request, 'listApiKeys', {
    params: undefined,
    query: pageQuery(KEYS_PAGE_SIZE, cursor),
    body: undefined,
  })
  if (!keys.ok) return refuse(request, reply, keys.error)
  const page = keysPage({
    keys: keys.value.value,
    cursor,
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    notice: refused ? null : noticeKey(single(request.query, 'notice')),
    form: refused?.form ?? null,
    checkedScopes: refused?.scopes ?? null,
    idempotencyKey: newFormKey(),
  })
  return sendPage(reply, page, refused?.status ?? 200)
}

/** `/settings/keys`: list, create (the secret shown once, on the answer itself) and revoke API keys. */
export function registerKeyRoutes(app: FastifyInstance, runtime: Runtime): void {
  app.get(webRoutes.apiKeys.pattern, (request, reply) => showKeys(runtime, request, reply, null))

  app.post(webRoutes.apiKeys.pattern, async (request, reply) => {
    const session = signedIn(request, reply, webRoutes.apiKeys.path())
    if (!session) return reply
    const form = request.body
    const name = field(form, 'name')
    const scopes = fields(form, 'scopes')
    const expires = field(form, 'expires').trim()
    const expiresAt = expiresAtOf(expires)
    // The ticked values as they came: `operate` checks them against the scope list.
    const body = { name, scopes: scopes as Scope[], ...(expiresAt === undefined ? {} : { expiresAt }) }
    const created = await operate(
      runtime,
      request,
      'createApiKey',
      { params: undefined, query: undefined, body },
      { idempotencyKey: idempotencyKeyOf(form) },
    )
    if (created.ok) {
      // The secret is on this answer and nowhere else: not in a redirect, not in any cache.
      return sendPage(reply, createdKeyPage({ key: created.value.value, visitor: visitorFrom(session) }), 201)
    }
    if (!isFormRefusal(created.error)) return refuse(request, reply, created.error)
    const refused = refusedForm(created.error, { name, expires }, rules)
    return showKeys(runtime, request, reply, { form: refused, scopes, status: httpStatusOf(created.error.code) })
  })

  app.post<{ Params: { apiKeyId: string } }>(webRoutes.apiKeyRevoke.pattern, async (request, reply) => {
    if (!signedIn(request, reply, webRoutes.apiKeys.path())) return reply
    const revoked = await operate(runtime, request, 'revokeApiKey', {
      params: { apiKeyId: request.params.apiKeyId },
      query: undefined,
      body: undefined,
    })
    if (!revoked.ok) return refuse(request, reply, revoked.error)
    return redirectWithNotice(reply, webRoutes.apiKeys.path({}, { notice: 'key-revoked' }))
  })
}
