import { linkRoleActions } from '../link-roles.ts'
import { defineOperation } from '../operation.ts'
import { AccessDryRun, ArtifactAccessSettings, UpdateAccessBody } from '../schemas/access.ts'
import { ArtifactParams } from '../schemas/artifact.ts'
import { Page, PageQuery } from '../schemas/common.ts'
import { CreatedShareLink, CreateShareLinkBody, ShareLink, ShareLinkParams } from '../schemas/share-link.ts'
import { DryRunQuery } from '../schemas/version.ts'

const read = { readOnly: true, destructive: false, idempotent: true } as const

/** Who may see and open an artifact: its access settings and its share links. */
export const sharingOperations = {
  getArtifactAccess: defineOperation({
    method: 'GET',
    path: '/api/artifacts/:artifactId/access',
    summary: "Read an artifact's access settings",
    tags: ['access'],
    action: 'artifact.access.read',
    anonymous: false,
    params: ArtifactParams,
    success: { status: 200, schema: ArtifactAccessSettings },
    errors: ['not_found', 'forbidden', 'insufficient_scope'],
    hints: read,
  }),
  updateArtifactAccess: defineOperation({
    method: 'PATCH',
    path: '/api/artifacts/:artifactId/access',
    summary: "Change an artifact's access settings",
    description:
      'Fields left out keep their value. `viewerEmails` replaces the whole list (at most 100, no duplicates; compared case-insensitively). With `dryRun=true` every check runs and nothing is written: the answer gives the settings now, the ones the change would leave and which fields differ. Both answers show the whole settings (the allowlist included), so the change, and its dry run, also needs what reading them needs (`artifacts:access:read`). A change never opens the artifact beyond what its caller may do: turning `publicView` on or adding an address to `viewerEmails` needs `artifacts:read`, turning `publicEdit` on `artifacts:update` (closing needs nothing more).',
    tags: ['access'],
    action: 'artifact.access.write',
    alsoNeeds: ['artifact.access.read'],
    anonymous: false,
    params: ArtifactParams,
    query: DryRunQuery,
    body: UpdateAccessBody,
    success: { status: 200, schema: ArtifactAccessSettings },
    dryRun: { schema: AccessDryRun },
    errors: ['not_found', 'forbidden', 'insufficient_scope'],
    hints: { readOnly: false, destructive: true, idempotent: true },
  }),
  createShareLink: defineOperation({
    method: 'POST',
    path: '/api/artifacts/:artifactId/share-links',
    summary: 'Create a share link (viewer by default) for one artifact',
    description:
      'The secret is returned once. It opens the artifact on the web app and works as a bearer token for this artifact only. A link never grants more than its creator may do with the artifact: a viewer link needs the creator to be allowed to read it (`artifacts:read`), an editor link also to append versions (`artifacts:update`); else 403 `insufficient_scope` (or `forbidden`) naming what is missing, and nothing is created.',
    tags: ['share links'],
    action: 'artifact.share',
    // What every link gives (a viewer's); an editor link's further needs follow its role (the use-case).
    alsoNeeds: linkRoleActions.viewer,
    anonymous: false,
    params: ArtifactParams,
    body: CreateShareLinkBody,
    bodyOptional: true,
    idempotencyKey: true,
    success: { status: 201, schema: CreatedShareLink },
    location: { operation: 'listShareLinks', params: { artifactId: 'artifactId' } },
    errors: ['not_found', 'forbidden', 'insufficient_scope', 'idempotency_key_reused', 'idempotency_key_in_use'],
    hints: { readOnly: false, destructive: false, idempotent: false },
  }),
  listShareLinks: defineOperation({
    method: 'GET',
    path: '/api/artifacts/:artifactId/share-links',
    summary: "List an artifact's share links, newest first (never their secrets)",
    tags: ['share links'],
    action: 'artifact.share',
    anonymous: false,
    params: ArtifactParams,
    query: PageQuery,
    success: { status: 200, schema: Page(ShareLink) },
    errors: ['not_found', 'forbidden', 'insufficient_scope', 'invalid_cursor'],
    hints: read,
  }),
  revokeShareLink: defineOperation({
    method: 'POST',
    path: '/api/share-links/:shareLinkId/revoke',
    summary: 'Revoke a share link (idempotent)',
    description:
      'The link stops working at once. Revoking a revoked link changes nothing and is not an error. Audit events that name the link stay.',
    tags: ['share links'],
    action: 'artifact.share',
    anonymous: false,
    params: ShareLinkParams,
    success: { status: 200, schema: ShareLink },
    errors: ['not_found', 'forbidden', 'insufficient_scope'],
    hints: { readOnly: false, destructive: true, idempotent: true },
  }),
} as const
