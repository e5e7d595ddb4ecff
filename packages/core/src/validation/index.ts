export {
  type Check,
  type CheckOptions,
  type CheckResult,
  checkInput,
  checkOf,
  IdempotencyHeaders,
  type InputCheckResult,
  type InputPart,
  type InputSchemas,
  inputParts,
  inputSchemasOf,
  NoQuery,
  partCheckOf,
} from './check.ts'
export { formatChecks, registerFormats } from './formats.ts'
export { type FieldError, firstPerField } from './issues.ts'
