import type {
  AccessDryRun,
  Artifact,
  ArtifactAccessSettings,
  ArtifactChanges,
  ArtifactDryRun,
  ArtifactRead,
  ErrorCode,
  PageOf,
  Version,
  VersionDryRun,
} from '@quire/core/contract'
import { describe, expectTypeOf, it } from 'vitest'
import {
  type ClientInput,
  type ClientOutput,
  createClient,
  type IdempotentOperationId,
  isQuireApiError,
  type PaginatedOperationId,
  type QuireApiError,
} from '../src/index.ts'

// These are checked by the type checker (`pnpm -F @quire/client typecheck`); at run time they are no-ops.
describe('types derived from the operation table', () => {
  const client = createClient({ baseUrl: 'https://api.quire.test', fetch: async () => new Response('{}') })
  // Never called: only type-checked.
  const uses = async () => {
    expectTypeOf(await client.ops.getArtifact({ params: { artifactId: 'art_1' } })).toEqualTypeOf<ArtifactRead>()
    expectTypeOf(await client.call('appendVersion', { params: { artifactId: 'a' }, body: { content: 'x' } })).toEqualTypeOf<Version>()
    expectTypeOf(await client.ops.listVersions({ params: { artifactId: 'a' } })).toEqualTypeOf<PageOf<Version>>()
    expectTypeOf(
      await client.ops.listProjectArtifacts({ params: { owner: 'ana', projectSlug: 'notes' }, query: { limit: 2 } }),
    ).toEqualTypeOf<PageOf<Artifact>>()
    // @ts-expect-error a project is named by its owner and its slug, both
    await client.ops.listProjectArtifacts({ params: { owner: 'ana' } })
    expectTypeOf(await client.ops.getArtifactChanges({ params: { artifactId: 'a' }, query: { since: 2 } })).toEqualTypeOf<ArtifactChanges>()
    // A dry run answers its preview; a flag only known at run time answers either.
    const append = { params: { artifactId: 'a' }, body: { content: 'x', expectedLatestVersion: 1 } }
    expectTypeOf(await client.ops.appendVersion({ ...append, query: { dryRun: true } })).toEqualTypeOf<VersionDryRun>()
    expectTypeOf(await client.call('appendVersion', { ...append, query: { dryRun: true } })).toEqualTypeOf<VersionDryRun>()
    expectTypeOf(await client.ops.appendVersion({ ...append, query: { dryRun: false } })).toEqualTypeOf<Version>()
    expectTypeOf(await client.ops.appendVersion(append)).toEqualTypeOf<Version>()
    expectTypeOf(
      await client.ops.restoreVersion({ params: { artifactId: 'a', versionNumber: 1 }, query: { dryRun: true } }),
    ).toEqualTypeOf<VersionDryRun>()
    expectTypeOf(
      await client.ops.updateArtifactAccess({ params: { artifactId: 'a' }, query: { dryRun: true }, body: { publicView: true } }),
    ).toEqualTypeOf<AccessDryRun>()
    const create = {
      body: {
        ownerUsername: 'ana',
        projectSlug: 'notes',
        slug: 'plan',
        type: 'md',
        title: 'Plan',
        content: '# Plan',
        changelog: '',
        access: { publicView: false, publicEdit: false },
      },
    } as const
    expectTypeOf(await client.ops.createArtifact({ ...create, query: { dryRun: true } })).toEqualTypeOf<ArtifactDryRun>()
    expectTypeOf(await client.call('createArtifact', { ...create, query: { dryRun: true } })).toEqualTypeOf<ArtifactDryRun>()
    expectTypeOf(await client.ops.createArtifact(create)).toEqualTypeOf<Artifact>()
    const maybe: boolean = Math.random() > 0.5
    expectTypeOf(
      await client.ops.updateArtifactAccess({ params: { artifactId: 'a' }, query: { dryRun: maybe }, body: { publicView: true } }),
    ).toEqualTypeOf<ArtifactAccessSettings | AccessDryRun>()
    // @ts-expect-error a read has no dry run
    await client.ops.getArtifact({ params: { artifactId: 'a' }, query: { dryRun: true } })
    expectTypeOf(client.paginate('listMyArtifacts')).toEqualTypeOf<AsyncGenerator<Artifact, void, undefined>>()
    // Nothing required: the input may be left out.
    await client.ops.health()
    await client.ops.listMyArtifacts()
    await client.ops.restoreVersion({ params: { artifactId: 'a', versionNumber: 1 } })
    // @ts-expect-error path parameters are required
    await client.ops.getArtifact({})
    // @ts-expect-error the body is required
    await client.ops.appendVersion({ params: { artifactId: 'a' } })
    // @ts-expect-error the query of a diff is required
    await client.ops.diffVersions({ params: { artifactId: 'a' } })
    // @ts-expect-error a read takes no Idempotency-Key
    await client.ops.getArtifact({ params: { artifactId: 'a' } }, { idempotencyKey: 'k' })
    await client.ops.createArtifact(
      {
        body: {
          ownerUsername: 'ana',
          projectSlug: 'notes',
          slug: 'hello',
          type: 'md',
          title: 'Hello',
          content: '# Hello',
          changelog: 'first',
          access: { publicView: false, publicEdit: false },
        },
      },
      { idempotencyKey: 'k' },
    )
    // @ts-expect-error `If-None-Match` belongs to send, which can answer "not modified"
    await client.call('getContent', { params: { artifactId: 'a' } }, { ifNoneMatch: '"x"' })
    const sent = await client.send('getContent', { params: { artifactId: 'a' } }, { ifNoneMatch: '"x"' })
    if (!sent.notModified) expectTypeOf(sent.body.content).toEqualTypeOf<string>()
    // @ts-expect-error getArtifact is not a list
    client.paginate('getArtifact', { params: { artifactId: 'a' } })
  }

  it('input, output, idempotent and paginated operations', () => {
    expectTypeOf(uses).toBeFunction()
    expectTypeOf<ClientOutput<'health'>>().toHaveProperty('status')
    expectTypeOf<ClientInput<'health'>>().toEqualTypeOf<{
      readonly params?: undefined
      readonly query?: undefined
      readonly body?: undefined
    }>()
    expectTypeOf<'listMyArtifacts' | 'listVersions' | 'listAuditEvents'>().toExtend<PaginatedOperationId>()
    expectTypeOf<'getArtifact'>().not.toExtend<PaginatedOperationId>()
    expectTypeOf<'appendVersion' | 'createArtifact' | 'restoreVersion'>().toExtend<IdempotentOperationId>()
    expectTypeOf<'updateArtifactAccess'>().not.toExtend<IdempotentOperationId>()
  })

  it('narrows a problem to its code', () => {
    const error: unknown = null
    if (isQuireApiError(error, 'version_conflict')) {
      expectTypeOf(error.code).toEqualTypeOf<'version_conflict'>()
      expectTypeOf(error.problem.latestVersion).toEqualTypeOf<number>()
      expectTypeOf(error.problem.diff).toEqualTypeOf<string | null>()
    }
    if (isQuireApiError(error)) expectTypeOf(error).toEqualTypeOf<QuireApiError<ErrorCode>>()
  })
})
