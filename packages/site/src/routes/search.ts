import { type ArtifactType, SEARCH_QUERY_MAX_LENGTH, SEARCH_QUERY_MAX_TERMS, type SearchQuery } from '@quire/core/contract'
import { httpStatusOf } from '@quire/http-edge'
import { type SearchOutcome, type SearchValues, searchPage, webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { visitorFrom } from '@quire/web-http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operate } from '../operate.ts'
import { type FieldRule, isFormRefusal, refuse, refusedForm } from './account/refusals.ts'
import { field, single } from './account/request-values.ts'
import { sendPage, signedIn } from './account/signed-in.ts'

/** Each field of the search form: where `searchArtifacts` takes it, and what to say when its schema refuses it. */
const rules: Readonly<Record<string, FieldRule>> = {
  q: {
    path: '/query/q',
    rule: `Type at most ${SEARCH_QUERY_MAX_LENGTH} characters and ${SEARCH_QUERY_MAX_TERMS} words or phrases.`,
  },
  project: { path: '/query/project', rule: 'Name a project as owner/project, such as ana/notes: lowercase letters, digits and hyphens.' },
  owner: { path: '/query/owner', rule: 'Name an owner by its username or workspace slug: lowercase letters, digits and hyphens.' },
  type: { path: '/query/type', rule: 'Choose a type from the list.' },
}

/** The form's values from the query string: each as typed, empty when absent or repeated. */
function valuesOf(query: unknown): SearchValues {
  return {
    q: field(query, 'q'),
    owner: field(query, 'owner').trim(),
    project: field(query, 'project').trim(),
    type: field(query, 'type'),
    versions: field(query, 'versions') === 'all' ? 'all' : 'latest',
  }
}

/**
 * What `searchArtifacts` is asked: the query as typed, the filters given, the page after `cursor`.
 * The type is whatever the select sent: the operation's schema checks it (and refuses it beside the field).
 */
function inputOf(values: SearchValues, cursor: string | undefined): SearchQuery {
  return {
    q: values.q,
    ...(values.owner ? { owner: values.owner } : {}),
    ...(values.project ? { project: values.project } : {}),
    ...(values.type ? { type: values.type as ArtifactType } : {}),
    ...(values.versions === 'all' ? { versions: 'all' } : {}),
    ...(cursor ? { cursor } : {}),
  }
}

/** Runs the search the query string asks for (`searchArtifacts`): its answer, and the cursor its page started at. */
async function search(runtime: Runtime, request: FastifyRequest, values: SearchValues) {
  const cursor = single(request.query, 'cursor') ?? undefined
  const found = await operate(runtime, request, 'searchArtifacts', { params: undefined, query: inputOf(values, cursor), body: undefined })
  return { found, cursor }
}

/**
 * `GET /search?q=`: the documents the signed-in person may read that match, through
 * `searchArtifacts` (the same schema, access rule and ranking as `GET /api/search`). With no query
 * yet, the form and how to search; a refused query (too long, a malformed filter, a stale cursor)
 * is the form again with the reason beside the box, as a 400. Signed out: sign in, then back here.
 */
export function registerSearchRoutes(app: FastifyInstance, options: { runtime: Runtime }): void {
  const { runtime } = options
  app.get(webRoutes.search.pattern, async (request, reply) => {
    const session = signedIn(request, reply)
    if (!session) return reply
    const values = valuesOf(request.query)
    const show = (outcome: SearchOutcome, status = 200): FastifyReply =>
      sendPage(reply, searchPage({ visitor: visitorFrom(session), now: runtime.deps.clock.now(), values, outcome }), status)
    if (values.q.trim() === '') return show({ kind: 'start' })
    const { found, cursor } = await search(runtime, request, values)
    if (found.ok) {
      const { items, nextCursor } = found.value.value
      return show({ kind: 'found', hits: items, nextCursor, cursor })
    }
    const failure = found.error
    if (!isFormRefusal(failure) && failure.code !== 'invalid_cursor') return refuse(request, reply, failure)
    const form = refusedForm(failure, { ...values }, rules)
    return show({ kind: 'refused', errors: form.errors, problem: form.formError }, httpStatusOf(failure.code))
  })
}
