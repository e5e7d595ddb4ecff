/** Records the use-case tests load through their stand-in stores: one artifact, and a session's credential. */
import type { ArtifactRecord, CredentialRecord } from '../src/index.ts'

/** A private Markdown artifact at version 3, `ana/notes/plan`, shared by email with viewer@example.com. */
export const artifact: ArtifactRecord = {
  id: 'art_01jc0000000000000000000001',
  workspaceId: 'wsp_01jc0000000000000000000001',
  type: 'md',
  publicView: false,
  publicEdit: false,
  viewerEmails: ['viewer@example.com'],
  latestVersion: 3,
  ownerSlug: 'ana',
  projectId: 'prj_01jc0000000000000000000001',
  projectSlug: 'notes',
  slug: 'plan',
  title: 'The plan',
  description: '',
  createdAt: new Date('2025-01-01T00:00:00.000Z'),
  updatedAt: new Date('2025-01-02T00:00:00.000Z'),
  deletedAt: null,
  createdBy: { kind: 'user', id: 'usr_01jc0000000000000000000001', label: 'ana' },
}

/** A browser session's credential of the person with this email. */
export function credential(email: string): CredentialRecord {
  return {
    id: 'crd_01jc0000000000000000000001',
    kind: 'session',
    scopes: [],
    expiresAt: null,
    revokedAt: null,
    audience: null,
    user: { id: 'usr_01jc0000000000000000000009', email, emailVerified: true, username: email.split('@')[0] ?? '' },
    agentId: null,
    agentName: null,
    artifactId: null,
    role: null,
    accountWorkspaceId: null,
  }
}
