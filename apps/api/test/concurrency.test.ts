import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, engine, seedArtifact, startTestApi, type TestApi } from './helper.ts'

let api: TestApi
let base: string
beforeAll(async () => {
  api = await startTestApi({ poolSize: 20 })
  base = await api.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await api.close()
})

async function append(token: string, artifactId: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/artifacts/${artifactId}/versions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe(`optimistic concurrency over real HTTP (${engine})`, () => {
  it('of 100 concurrent appends on the same expectedLatestVersion exactly one wins', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'base\n' })
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => append(owner.token, artifact.id, { content: `writer ${i}\n`, expectedLatestVersion: 1 })),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(99)
    for (const loser of results.filter((r) => r.status === 409)) {
      expect(loser.body).toMatchObject({ code: 'version_conflict', latestVersion: 2, expectedLatestVersion: 1 })
    }
    const numbers = await api.runtime.database.db
      .selectFrom('versions')
      .select('number')
      .where('artifact_id', '=', artifact.id)
      .orderBy('number')
      .execute()
    expect(numbers.map((r) => r.number)).toEqual([1, 2])
    const events = await api.runtime.database.db
      .selectFrom('audit_events')
      .select(['action', sql<number>`(data->>'versionNumber')::int`.as('version')])
      .where('artifact_id', '=', artifact.id)
      .execute()
    expect(events.map((e) => e.version).sort()).toEqual([1, 2])
  })

  it('keeps versions contiguous when 20 writers race, each retrying until it lands', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'base\n' })
    const writers = Array.from({ length: 20 }, async (_, i) => {
      let expected = 1
      for (let attempt = 0; attempt < 500; attempt++) {
        const r = await append(owner.token, artifact.id, { content: `writer ${i}\n`, expectedLatestVersion: expected })
        if (r.status === 201) return r.body.versionNumber as number
        expect(r.status).toBe(409)
        expected = r.body.latestVersion as number
      }
      throw new Error('writer starved')
    })
    const landed = await Promise.all(writers)
    expect(new Set(landed).size).toBe(20)
    const numbers = (
      await api.runtime.database.db
        .selectFrom('versions')
        .select('number')
        .where('artifact_id', '=', artifact.id)
        .orderBy('number')
        .execute()
    ).map((r) => r.number)
    expect(numbers).toEqual(Array.from({ length: 21 }, (_, i) => i + 1))
    expect(await count(api, 'audit_events', { artifactId: artifact.id })).toBe(21)
  })

  it('an Idempotency-Key retry returns the first result and writes nothing, even when retries race', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'base\n' })
    const body = { content: 'once\n', expectedLatestVersion: 1 }
    const key = { 'idempotency-key': 'retry-me-1' }
    const results = await Promise.all(Array.from({ length: 10 }, () => append(owner.token, artifact.id, body, key)))
    for (const r of results) {
      expect(r.status).toBe(201)
      expect(r.body).toEqual(results[0]?.body)
    }
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(2)
    expect(await count(api, 'audit_events', { artifactId: artifact.id })).toBe(2)

    const later = await append(owner.token, artifact.id, body, key)
    expect(later).toEqual(results[0])
    const reused = await append(owner.token, artifact.id, { content: 'different\n', expectedLatestVersion: 2 }, key)
    expect(reused.status).toBe(422)
    expect(reused.body).toMatchObject({ code: 'idempotency_key_reused' })
    expect(await count(api, 'versions', { artifactId: artifact.id })).toBe(2)
  })

  it('leaves every version with its artifact and its content (the invariant versions rely on)', async () => {
    const orphans = await api.runtime.database.db
      .selectFrom('versions as v')
      .leftJoin('artifacts as a', 'a.id', 'v.artifact_id')
      .leftJoin('contents as c', 'c.sha256', 'v.content_sha256')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where((eb) => eb.or([eb('a.id', 'is', null), eb('c.sha256', 'is', null)]))
      .executeTakeFirstOrThrow()
    const all = await api.runtime.database.db
      .selectFrom('versions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(all.n)).toBeGreaterThan(20)
    expect(Number(orphans.n)).toBe(0)
    const heads = await api.runtime.database.db
      .selectFrom('artifacts as a')
      .leftJoin('versions as v', (join) => join.onRef('v.artifact_id', '=', 'a.id').onRef('v.number', '=', 'a.latest_version'))
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('v.number', 'is', null)
      .executeTakeFirstOrThrow()
    expect(Number(heads.n)).toBe(0)
  })
})

describe(`reads that share a statement over real HTTP (${engine})`, () => {
  async function read(token: string | null, artifactId: string, query = '') {
    const res = await fetch(`${base}/api/artifacts/${artifactId}/content${query}`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }

  it('answers a burst from many callers each with what that caller may see, and a revoked key at once', async () => {
    const { owner, artifact } = await seedArtifact(api, { content: 'private words\n' })
    const stranger = await api.user(`stranger-${Math.random().toString(36).slice(2, 8)}@example.com`)
    const callers = [
      { token: owner.token, status: 200 },
      { token: stranger.token, status: 404 },
      { token: null, status: 404 },
      { token: 'qk_not_a_key_at_all', status: 401 },
    ]
    const burst = Array.from({ length: 80 }, (_, i) => callers[i % callers.length] as (typeof callers)[number])
    const results = await Promise.all(burst.map((c, i) => read(c.token, artifact.id, i % 8 < 4 ? '?version=1' : '')))
    results.forEach((r, i) => {
      expect(r.status, `request ${i}`).toBe(burst[i]?.status)
      if (r.status === 200) expect(r.body).toMatchObject({ artifactId: artifact.id, versionNumber: 1, content: 'private words\n' })
    })
    await api.runtime.database.db.updateTable('credentials').set({ revoked_at: new Date() }).where('user_id', '=', owner.userId).execute()
    const after = await Promise.all(Array.from({ length: 20 }, () => read(owner.token, artifact.id)))
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(401))
  })
})
