import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

function makeAjv(options: Options): Ajv {
  // `verbose` keeps the offending value on each error, so a refusal can name it.
  const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, removeAdditional: false, verbose: true, ...options })
  addFormats.default(ajv)
  return ajv
}

// Bodies are JSON: no coercion, unknown fields refused by the schemas. Path, query and headers
// arrive as strings and are coerced to the declared types.
const bodyAjv = makeAjv({ coerceTypes: false })
const stringAjv = makeAjv({ coerceTypes: true })

/** Fastify's validator compiler, strict for bodies and coercing for URL parts and headers. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : stringAjv
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>
}
