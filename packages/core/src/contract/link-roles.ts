import type { Action } from './actions.ts'
import type { ShareLinkRole } from './schemas/share-link.ts'

/**
 * What a share link of each role lets whoever holds it do on its one artifact: the policy grants a
 * link exactly these, and creating one needs its creator to be allowed each of them (a link never
 * grants more than its creator may do; docs/decisions.md, "A write grants no more than its caller
 * may do").
 */
export const linkRoleActions = {
  viewer: ['artifact.read'],
  editor: ['artifact.read', 'artifact.update'],
} as const satisfies Readonly<Record<ShareLinkRole, readonly Action[]>>
