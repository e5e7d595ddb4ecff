import type { HandlerName } from '../registry/types.ts'
import type { Handler } from './context.ts'

/** Commands with a module of their own, loaded only when that command runs (start-up stays fast). */
export const handlers: Record<HandlerName, () => Promise<Handler>> = {
  login: async () => (await import('../commands/login.ts')).login,
  logout: async () => (await import('../commands/logout.ts')).logout,
  authStatus: async () => (await import('../commands/auth-status.ts')).authStatus,
  push: async () => (await import('../commands/push.ts')).push,
  schema: async () => (await import('../commands/schema.ts')).schema,
  mcp: async () => (await import('../commands/mcp.ts')).mcp,
  edit: async () => (await import('../commands/edit.ts')).edit,
  open: async () => (await import('../commands/open.ts')).open,
  completion: async () => (await import('../commands/completion-command.ts')).completion,
  watch: async () => (await import('../commands/watch.ts')).watch,
}
