/**
 * Every operation of the served OpenAPI document, fuzzed against the document on the real app and
 * database (both engines): what schemathesis checks, in process and deterministic. Requests are
 * built from `/openapi.json` alone (parameters, bodies, their schemas with every `$ref` resolved)
 * around each operation's example from operation-world.ts (a call that succeeds), with hostile text
 * in every free string, integers at their bounds and just past them, raw URL bytes, missing and
 * broken bodies and other credentials (openapi-requests.ts). Every answer:
 *
 * - is never a 5xx;
 * - has a status the document lists for the operation, the media type it documents for that
 *   status, and a body its schema accepts (openapi-document.ts);
 * - refuses (4xx) a request that breaks a documented rule (a required part missing, a value its
 *   schema refuses) or carries ill-formed text;
 * - when it is a refusal, is a problem whose code the edge answers with this status.
 *
 * Each operation's example runs first and must succeed, so every operation is reached and seen to
 * succeed whatever the generated requests do; the example without its body must succeed where the
 * document says the body is optional. The cases are the same on every run (fixed seeds).
 */
import { type OperationId, operationIds } from '@quire/core'
import { httpStatusOf } from '@quire/http-edge'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'
import { type DocumentedOperation, departures, documentedOperations } from './openapi-document.ts'
import {
  brokenRules,
  type Case,
  carriesIllFormedText,
  caseArbitrary,
  exampleOf,
  fixedCases,
  requestOf,
  type Who,
} from './openapi-requests.ts'
import { createWorld, type PreparedRequest, prepare, tokenFor, type World } from './operation-world.ts'

/** Generated requests per operation, beside its fixed cases. */
const runsPerOperation = 50
/** The generated requests are the same on every run: each operation's seed is this one mixed with its id. */
const seed = 27

let api: TestApi
let world: World
let documented: Map<string, DocumentedOperation>

beforeAll(async () => {
  api = await startTestApi()
  const served = await api.request('GET', '/openapi.json')
  expect(served.statusCode).toBe(200)
  documented = documentedOperations(served.json())
  world = await createWorld(api)
})
afterAll(async () => {
  await api.close()
})

/** FNV-1a of the id, from `seed`: adding an operation changes no other operation's requests. */
function seedOf(id: string): number {
  let hash = seed
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0
  return hash | 0
}

function tokenOf(id: OperationId, example: PreparedRequest, who: Who): string | null {
  switch (who) {
    case 'example':
      return tokenFor(world, example.principal, id, example.artifact)
    case 'anonymous':
      return null
    case 'garbage':
      return 'qk_garbage'
    case 'revoked':
      return world.keys.revoked
    case 'stranger':
      return world.users.stranger.token
  }
}

const sent = { fixed: 0, generated: 0 }
const statuses = new Map<OperationId, Map<string, number>>()

function record(id: OperationId, outcome: string): void {
  const counts = statuses.get(id) ?? new Map<string, number>()
  counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
  statuses.set(id, counts)
}

function parsedBody(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Sends a case; what is wrong with its answer (nothing: empty), and the request as shown in a failure. */
async function check(
  id: OperationId,
  op: DocumentedOperation,
  example: PreparedRequest,
  c: Case,
): Promise<{ wrong: string[]; shown: string }> {
  const request = requestOf(op, c, tokenOf(id, example, c.who))
  const res = await api.app.inject(request)
  const shown = `${c.label}: ${request.method} ${request.url} as ${c.who} ${(request.payload ?? '').slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`
  const wrong: string[] = []
  if (res.statusCode >= 500) wrong.push(`a ${res.statusCode}`)
  wrong.push(
    ...departures(op, { statusCode: res.statusCode, contentType: res.headers['content-type'] as string | undefined, body: res.body }),
  )
  if (res.statusCode >= 400) {
    const code = parsedBody(res.body)?.code
    record(id, `${res.statusCode} ${String(code)}`)
    if (typeof code !== 'string' || httpStatusOf(code as never) !== res.statusCode)
      wrong.push(`the problem's code ${String(code)} is not answered with ${res.statusCode}`)
  } else record(id, String(res.statusCode))
  const broken = brokenRules(op, c)
  if (broken.length > 0 && res.statusCode < 400) wrong.push(`answered ${res.statusCode}, yet ${broken.join('; ')}`)
  if (carriesIllFormedText(op, c) && res.statusCode < 400) wrong.push(`accepted ill-formed text (${res.statusCode})`)
  if (c.mustSucceed && (res.statusCode < 200 || res.statusCode >= 300)) wrong.push(`must succeed, answered ${res.statusCode}`)
  return { wrong, shown }
}

describe(`every operation of /openapi.json, fuzzed against the document (${engine})`, () => {
  for (const id of operationIds) {
    it(`${id}: the example succeeds; boundaries, missing bodies and generated requests get documented answers, never a 5xx`, async () => {
      const op = documented.get(id)
      if (!op) throw new Error(`${id} is not in /openapi.json`)
      const prepared = await prepare(world, id)
      const example = exampleOf(op, prepared)
      // Every fixed case runs, and all that went wrong is reported together.
      const wrong: string[] = []
      for (const c of fixedCases(op, example)) {
        const result = await check(id, op, prepared, c)
        sent.fixed++
        wrong.push(...result.wrong.map((w) => `${result.shown}\n  ${w}`))
      }
      expect.soft(wrong).toEqual([])
      await fc.assert(
        fc.asyncProperty(caseArbitrary(op, example), async (c) => {
          const result = await check(id, op, prepared, c)
          sent.generated++
          expect(result.wrong, result.shown).toEqual([])
        }),
        { seed: seedOf(id), numRuns: runsPerOperation },
      )
    })
  }

  it('an operation without an example fails, named', async () => {
    await expect(prepare(world, 'surfaceProbe' as OperationId)).rejects.toThrow('surfaceProbe: no example request')
  })

  it('reached every operation’s handler and saw it succeed, and says how many requests it sent', () => {
    expect([...documented.keys()].sort()).toEqual([...operationIds].sort())
    const succeeded = operationIds.filter((id) => [...(statuses.get(id)?.keys() ?? [])].some((s) => s.startsWith('2')))
    console.info(
      `fuzz (${engine}): ${operationIds.length} operations, ${sent.fixed + sent.generated} requests ` +
        `(${sent.fixed} fixed: examples, left-out bodies, bounds; ${sent.generated} generated, seed ${seed}), ${succeeded.length} with a success`,
    )
    const byOutcome = new Map<string, number>()
    for (const counts of statuses.values()) for (const [outcome, n] of counts) byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + n)
    console.info(
      [...byOutcome]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([outcome, n]) => `${outcome}: ${n}`)
        .join(', '),
    )
    expect(operationIds.filter((id) => !succeeded.includes(id))).toEqual([])
    expect(sent.generated).toBeGreaterThanOrEqual(operationIds.length * runsPerOperation)
  })
})
