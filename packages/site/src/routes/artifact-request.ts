import type { ParamsOf, webRoutes } from '@quire/pages'
import type { FastifyRequest } from 'fastify'

/** The names of an artifact, as the path of its pages gives them (`webRoutes.artifact` and the routes under it). */
export type ArtifactPathParams = ParamsOf<typeof webRoutes.artifact.pattern>

/** A request for one of an artifact's pages. */
export type PathRequest = FastifyRequest<{ Params: ArtifactPathParams }>
