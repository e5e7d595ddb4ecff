import { type Bindings, bindings, operationIds, operations } from '@quire/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engine, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
beforeAll(async () => {
  api = await startTestApi()
})
afterAll(async () => {
  await api.close()
})

// A binding table that misses an operation does not compile (checked by `tsc` over this file):
const { getContent: _left, ...incomplete } = bindings
// @ts-expect-error getContent is missing
const _notABindingTable: Bindings = incomplete

describe(`the operation table drives the API (${engine})`, () => {
  it('has exactly one binding per operation', () => {
    expect(Object.keys(bindings).sort()).toEqual([...operationIds].sort())
  })

  it('serves OpenAPI 3.1 with every operation, its scope and its errors', async () => {
    const res = await api.request('GET', '/openapi.json')
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.0')
    const found = new Map<string, { method: string; path: string; op: Record<string, unknown> }>()
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      for (const [method, op] of Object.entries(item))
        if (typeof op.operationId === 'string') found.set(op.operationId, { method, path, op })
    }
    for (const id of operationIds) {
      const spec = operations[id]
      const entry = found.get(id)
      expect(entry, id).toBeDefined()
      expect(entry?.method).toBe(spec.method.toLowerCase())
      expect(entry?.path).toBe(spec.path.replace(/:([A-Za-z]+)/g, '{$1}'))
      expect(Object.keys(entry?.op.responses as object)).toContain(String(spec.success.status))
      if (spec.action) expect(JSON.stringify(entry?.op.security)).toContain('bearer')
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('serves a docs page', async () => {
    const res = await api.request('GET', '/docs/')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/html')
  })

  it('reports health with the database', async () => {
    const res = await api.request('GET', '/health')
    expect(res.json()).toMatchObject({ status: 'ok', database: 'ok' })
  })

  it('answers every kind of malformed request with problem+json, never a stack', async () => {
    const cases = [
      { name: 'invalid JSON', payload: '{"ownerUsername":', type: 'application/json', status: 400, code: 'validation_failed' },
      { name: 'not JSON', payload: 'a=b', type: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type' },
      {
        name: 'unknown field',
        payload: JSON.stringify({ ownerUsername: 'a', slug: 'b', title: 't', icon: 'i', extra: 1 }),
        type: 'application/json',
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'NUL in text',
        payload: JSON.stringify({ ownerUsername: 'a', slug: 'b', title: 't\u0000', icon: 'i' }),
        type: 'application/json',
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'too large',
        payload: JSON.stringify({ x: 'y'.repeat(9 * 1024 * 1024) }),
        type: 'application/json',
        status: 413,
        code: 'payload_too_large',
      },
    ]
    const { token } = await api.user('malformed@example.com')
    for (const c of cases) {
      const res = await api.app.inject({
        method: 'POST',
        url: '/api/projects',
        payload: c.payload,
        headers: { 'content-type': c.type, authorization: `Bearer ${token}` },
      })
      expect(res.statusCode, c.name).toBe(c.status)
      expect(res.headers['content-type'], c.name).toContain('application/problem+json')
      const body = res.json()
      expect(body, c.name).toMatchObject({ code: c.code, status: c.status, type: `urn:quire:problem:${c.code}` })
      expect(body.requestId).toBe(res.headers['x-request-id'])
      expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/)
    }
    const unknownField = await api.request('POST', '/api/projects', {
      token,
      body: { ownerUsername: 'a', slug: 'b', title: 't', icon: 'i', extra: 1 },
    })
    expect(unknownField.json().errors).toEqual([{ path: '/body/extra', message: 'is not an allowed field' }])
  })

  it('names every missing or wrong field', async () => {
    const { token } = await api.user('fields@example.com')
    const res = await api.request('POST', '/api/artifacts', { token, body: { ownerUsername: 'UPPER', type: 'exe' } })
    expect(res.statusCode).toBe(400)
    const paths = (res.json().errors as { path: string }[]).map((e) => e.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/body/ownerUsername',
        '/body/type',
        '/body/projectSlug',
        '/body/slug',
        '/body/title',
        '/body/content',
        '/body/changelog',
        '/body/access',
      ]),
    )
  })

  it('keeps an incoming request id and echoes it', async () => {
    const res = await api.request('GET', '/api/artifacts/art_nope', { headers: { 'x-request-id': 'trace-1234abcd' } })
    expect(res.headers['x-request-id']).toBe('trace-1234abcd')
    expect(res.json().requestId).toBe('trace-1234abcd')
  })
})
