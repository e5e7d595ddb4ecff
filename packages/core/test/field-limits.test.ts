import { describe, expect, it } from 'vitest'
import { fieldLimits } from '../src/contract/field-limits.ts'

describe('fieldLimits', () => {
  it("reads a form field's limits from its operation's schema", () => {
    expect(fieldLimits('createApiKey', '/body/name')).toEqual({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]*$' })
    expect(fieldLimits('createInvitation', '/body/email')).toEqual({ maxLength: 254 })
    expect(fieldLimits('updateProfile', '/body/username').maxLength).toBe(64)
  })

  it('refuses a field the operation does not have', () => {
    expect(() => fieldLimits('createApiKey', '/body/nope')).toThrow('createApiKey has no field /body/nope')
    expect(() => fieldLimits('createApiKey', '/body')).toThrow()
  })
})
