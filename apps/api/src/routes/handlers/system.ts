import { checkHealth } from '@quire/core'
import { type Handler, reply } from '../handler.ts'

export const systemHandlers: { health: Handler<'health'> } = {
  health: async (_input, { deps }) => reply(await checkHealth(deps)),
}
