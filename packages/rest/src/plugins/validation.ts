import { type InputPart, partCheckOf } from '@quire/core'
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify'
import type { TSchema } from 'typebox'

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null }

const parts: Readonly<Record<string, InputPart>> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' }

/**
 * Fastify's validator compiler: core's one validator (`partCheckOf`), strict for bodies and
 * coercing for URL parts and headers, text well-formed everywhere. A refused part's errors carry
 * each field's pointer within the part and the message as every surface words it; the problem
 * mapping names the part (`/body/title`).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const check = partCheckOf(parts[httpPart ?? 'body'] ?? 'body', schema as TSchema)
  const validate: Validate = (data) => {
    // Coercion and defaults change the part in place, as Fastify's own compiler does.
    const result = check(data)
    validate.errors = result.ok
      ? null
      : result.errors.map(({ path, message }) => ({ keyword: 'schema', instancePath: path, schemaPath: '#', params: {}, message }))
    return result.ok
  }
  return validate as ReturnType<FastifySchemaCompiler<unknown>>
}
