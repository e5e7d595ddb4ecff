import { type Static, Type } from 'typebox'

export const Health = Type.Object({
  status: Type.Literal('ok'),
  database: Type.Literal('ok'),
  version: Type.String({ description: 'Server version.' }),
})
export type Health = Static<typeof Health>
