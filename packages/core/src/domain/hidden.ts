/**
 * What a caller is told about a resource it may not know exists. The answer is the same, byte for
 * byte, whether the resource exists and is hidden from the caller or does not exist at all, and
 * whatever name or id was asked for (nothing of the request is echoed). Every `not_found`
 * that hides something takes its words from here.
 */
export const unseen = {
  artifact: 'No such artifact, or you may not see it.',
  workspace: 'No such workspace that you belong to.',
  invitation: 'No such invitation.',
  /** To its invitee: someone else's, revoked, expired or unknown invitations look the same. */
  invitationForYou: 'No pending invitation with this id for your verified email.',
  shareLink: 'No such share link, or you may not see it.',
  apiKey: 'No such API key among yours.',
  agent: 'No such agent among yours.',
  namespace: 'No such owner namespace, or you may not see it.',
  project: 'No such project, or you may not see it.',
} as const

/** Whoever presents a credential that is not valid hears this, whatever the reason (unknown, expired, revoked…). */
export const invalidCredential = 'The bearer credential is not valid: it is unknown, expired or revoked.'
