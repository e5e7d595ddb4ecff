import type { Handlers } from '../handler.ts'
import { artifactHandlers } from './artifacts.ts'
import { auditHandlers } from './audit.ts'
import { projectHandlers } from './projects.ts'
import { sharingHandlers } from './sharing.ts'
import { systemHandlers } from './system.ts'
import { versionHandlers } from './versions.ts'

/** Every operation's handler. The `Handlers` type makes a missing one a compile error. */
export const handlers: Handlers = {
  ...systemHandlers,
  ...projectHandlers,
  ...artifactHandlers,
  ...versionHandlers,
  ...sharingHandlers,
  ...auditHandlers,
}
