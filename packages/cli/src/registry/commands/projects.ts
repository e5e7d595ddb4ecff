import type { CommandSpec } from '../types.ts'
import { change, jsonFlag, list, owner, projectSlug, show, slugOf } from './rows.ts'

/** Projects, and finding things by their path. */
export const projectCommands: readonly CommandSpec[] = [
  list(['project', 'list'], 'List your projects', 'listMyProjects', ['id', 'ownerUsername', 'slug', 'title']),
  change(['project', 'create'], 'Create a project', 'createProject', [
    jsonFlag('The project ({ownerUsername, slug, title, icon, description?})'),
  ]),
  show(['project', 'slug-availability'], 'Check whether a project slug is free', 'checkProjectSlug', [owner, slugOf('Project')]),
]

export const pathCommands: readonly CommandSpec[] = [
  show(['path', 'project'], 'Find a project by its path', 'resolveProjectPath', [owner, projectSlug]),
  show(['path', 'artifact'], 'Find an artifact by its path', 'resolveArtifactPath', [owner, projectSlug, slugOf('Artifact')]),
]
