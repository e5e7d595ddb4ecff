import { type Failure, getNamespacePermissions, type NamespacePermissions, type Result } from '@quire/core'
import { type FieldLimits, fieldLimits } from '@quire/core/contract'
import type { SlugCheck } from '@quire/pages'
import type { Runtime } from '@quire/runtime'
import { webCaller, webDeps } from '@quire/web-http'
import type { FastifyRequest } from 'fastify'

/**
 * Where the person may publish: the workspaces they belong to, each with what the one policy lets
 * them start there (`getNamespacePermissions`). The create forms offer owners, projects and the
 * access fields from this; the operation each form runs decides again.
 */
export function publishingPlaces(runtime: Runtime, request: FastifyRequest): Promise<Result<NamespacePermissions[]>> {
  return getNamespacePermissions(webDeps(runtime.deps, request), webCaller(request))
}

/** What a field accepts, in a sentence made from its schema's limits (`1–200 characters`). */
export function lengthWords(limits: FieldLimits): string {
  const { minLength = 0, maxLength } = limits
  if (maxLength === undefined) return minLength > 0 ? `at least ${minLength} characters` : 'any length'
  return minLength > 0 ? `${minLength}–${maxLength} characters` : `at most ${maxLength} characters`
}

/** The rule said when a text field's schema refuses what was typed. */
export function lengthRule(id: 'createProject' | 'createArtifact', field: string, what: string): { path: string; rule: string } {
  const path = `/body/${field}`
  return { path, rule: `Give ${what} of ${lengthWords(fieldLimits(id, path))}.` }
}

/** The slug rule, as both create operations' schemas have it. */
export const slugRule = 'Use 1–64 lowercase letters, digits and inner hyphens (no hyphen first or last).'

/**
 * A refused slug as the refusal itself tells it: the free alternatives it carries (made with the
 * title, which an availability check does not know); null when it carries none.
 */
export function refusedSlug(failure: Failure, slug: string): SlugCheck | null {
  const suggested = failure.meta?.suggestions
  if (!Array.isArray(suggested)) return null
  const suggestions = suggested.filter((name): name is string => typeof name === 'string')
  return { slug, available: false, reason: failure.code === 'slug_taken' ? 'taken' : 'reserved', suggestions, path: null }
}
