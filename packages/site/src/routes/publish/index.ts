import { webRoutes } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import type { FastifyInstance } from 'fastify'
import { newArtifactRoutes } from './new-artifact.ts'
import { newProjectRoutes } from './new-project.ts'
import { registerUploads } from './upload.ts'

/**
 * Publishing from the browser, without script: a new project, and a new artifact from pasted text
 * or an uploaded file, each through its operation (`createProject`, `createArtifact`: the same
 * schemas, `decide()` and audit write as REST). The slug is checked as the person goes with a
 * plain submit (`checkProjectSlug`, `previewArtifactUrl`), and an artifact is previewed rendered
 * from the create's dry run before anything is written.
 *
 * | Page or form         | Operation                                                            |
 * |----------------------|----------------------------------------------------------------------|
 * | GET/POST /new/project | createProject; checkProjectSlug (Check, and after a taken slug)     |
 * | GET/POST /new        | createArtifact (dry run on Preview); previewArtifactUrl (Check)      |
 */
export async function registerPublishRoutes(app: FastifyInstance, options: { runtime: Runtime }): Promise<void> {
  const { runtime } = options
  app.get(webRoutes.newProject.pattern, (request, reply) => newProjectRoutes.show(runtime, request, reply))
  app.post(webRoutes.newProject.pattern, (request, reply) => newProjectRoutes.post(runtime, request, reply))
  // Only the new-artifact form takes files: multipart is parsed in its scope alone.
  await app.register(async (scope) => {
    await registerUploads(scope, runtime.deps.config.limits.contentBytes)
    scope.get(webRoutes.newArtifact.pattern, (request, reply) => newArtifactRoutes.show(runtime, request, reply))
    scope.post(webRoutes.newArtifact.pattern, (request, reply) => newArtifactRoutes.post(runtime, request, reply))
  })
}
