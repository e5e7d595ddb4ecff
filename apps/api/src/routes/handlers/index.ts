import type { Handlers } from '../handler.ts'
import { apiKeyHandlers } from './api-keys.ts'
import { artifactHandlers } from './artifacts.ts'
import { auditHandlers } from './audit.ts'
import { profileHandlers } from './profile.ts'
import { projectHandlers } from './projects.ts'
import { sharingHandlers } from './sharing.ts'
import { systemHandlers } from './system.ts'
import { versionHandlers } from './versions.ts'
import { workspaceHandlers } from './workspaces.ts'

/** Every operation's handler. The `Handlers` type makes a missing one a compile error. */
export const handlers: Handlers = {
  ...systemHandlers,
  ...profileHandlers,
  ...apiKeyHandlers,
  ...workspaceHandlers,
  ...projectHandlers,
  ...artifactHandlers,
  ...versionHandlers,
  ...sharingHandlers,
  ...auditHandlers,
}
