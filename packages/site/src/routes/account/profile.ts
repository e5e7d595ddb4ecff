import { httpStatusOf } from '@quire/http-edge'
import { type FormState, noticeKey, profilePage, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../../operate.ts'
import { redirectWithNotice } from './notice-redirect.ts'
import { isFormRefusal, refuse, refusedForm } from './refusals.ts'
import { field, single } from './request-values.ts'
import { sendPage, signedIn } from './signed-in.ts'

const usernameRule = { path: '/body/username', rule: 'Use 1–64 lowercase letters, digits and inner hyphens (no hyphen first or last).' }

/** The profile page, with the username form as refused (or fresh). */
async function showProfile(
  runtime: Runtime,
  apiUrl: string | null,
  request: FastifyRequest,
  reply: FastifyReply,
  form: FormState | null,
  status = 200,
) {
  const session = signedIn(request, reply, webRoutes.profile.path())
  if (!session) return reply
  const profile = await operate(runtime, request, 'getProfile', { params: undefined, query: undefined, body: undefined })
  if (!profile.ok) return refuse(request, reply, profile.error)
  const page = profilePage({
    profile: profile.value.value,
    visitor: visitorFrom(session),
    csrfToken: session.csrfToken,
    notice: form ? null : noticeKey(single(request.query, 'notice')),
    form,
    webUrl: runtime.deps.config.webUrl,
    apiUrl,
  })
  return sendPage(reply, page, status)
}

/** `/settings` (the profile) and `POST /settings/profile` (change the username); `apiUrl` for the API documentation link. */
export function registerProfileRoutes(app: FastifyInstance, runtime: Runtime, apiUrl: string | null): void {
  app.get(webRoutes.profile.pattern, (request, reply) => showProfile(runtime, apiUrl, request, reply, null))

  app.post(webRoutes.username.pattern, async (request, reply) => {
    if (!signedIn(request, reply, webRoutes.profile.path())) return reply
    const username = field(request.body, 'username').trim()
    const renamed = await operate(runtime, request, 'updateProfile', { params: undefined, query: undefined, body: { username } })
    if (renamed.ok) return redirectWithNotice(reply, webRoutes.profile.path({}, { notice: 'username-changed' }))
    if (!isFormRefusal(renamed.error)) return refuse(request, reply, renamed.error)
    const form = refusedForm(renamed.error, { username }, { username: usernameRule }, { slug_taken: 'username' })
    return showProfile(runtime, apiUrl, request, reply, form, httpStatusOf(renamed.error.code))
  })
}
