import { type Static, Type } from 'typebox'

export const Health = Type.Object({
  status: Type.Literal('ok', { description: 'Always `ok` on a 200 answer (a failing check answers 503).' }),
  database: Type.Literal('ok', { description: '`ok`: the database answered a query.' }),
  version: Type.String({ description: 'Server version.' }),
})
export type Health = Static<typeof Health>
