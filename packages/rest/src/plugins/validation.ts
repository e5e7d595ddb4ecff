import { illFormedText } from '@quire/core'
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

/** A validation error as ajv reports it (and as the problem mapping reads it). */
interface SchemaError {
  instancePath: string
  schemaPath: string
  keyword: string
  params: Record<string, unknown>
  message: string
}

type Validate = ((data: unknown) => boolean) & { errors?: SchemaError[] | null }

/**
 * Wraps a part's schema check with core's one text rule (`illFormedText`): every string and
 * field name of the part, whatever its schema says, must be well-formed Unicode without NUL.
 * The rule runs first, so a lone surrogate is named as such (400 `validation_failed` at e.g.
 * `/body/title`) before anything else looks at the value.
 */
export function withTextRule(check: Validate): Validate {
  const validate: Validate = (data) => {
    const issues = illFormedText(data)
    if (issues.length > 0) {
      validate.errors = issues.map((issue) => ({
        instancePath: issue.path,
        schemaPath: '#',
        keyword: 'wellFormedText',
        params: {},
        message: issue.message,
      }))
      return false
    }
    const valid = check(data)
    validate.errors = check.errors ?? null
    return valid
  }
  return validate
}

/** Fastify's validator compiler, strict for bodies and coercing for URL parts and headers; text must be well-formed everywhere. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : stringAjv
  return withTextRule(ajv.compile(schema as object) as Validate) as ReturnType<FastifySchemaCompiler<unknown>>
}
