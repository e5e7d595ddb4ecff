/**
 * `@quire/pages`: the web app's pages as pure functions from what a page shows to its HTML, all
 * built with `@quire/render`'s `html` template (every value escaped). No server and no I/O: the
 * routes (`@quire/site`, `@quire/sign-in`) load the data, decide, and send what these return.
 * `web-routes.ts` is the table of every route the web app serves: pages link and routes register from it.
 */
export { type AgentConnection, agentsPage } from './account/agents.ts'
export { type AuditFilter, type AuditSubject, auditPage } from './account/audit.ts'
export type { FormState } from './account/forms.ts'
export { noticeKey } from './account/frame.ts'
export { myInvitationsPage } from './account/invitations.ts'
export { createdKeyPage, keysPage } from './account/keys.ts'
export { profilePage } from './account/profile.ts'
export { managesWorkspace, workspacePage, workspacesPage } from './account/workspaces.ts'
export { type ClaimPage, claimPage, claimPageStatus } from './agent-claim.ts'
export { type ArtifactView, artifactPage } from './artifact.ts'
export { ownerPage, projectPage } from './browse.ts'
export { artifactCrumbs } from './crumbs.ts'
export { devSignInPage } from './dev-sign-in.ts'
export { diffPage, parseUnifiedDiff } from './diff.ts'
export { errorPage } from './error-page.ts'
export { historyPage } from './history.ts'
export { type HomeOverview, type SignedInHomeView, signedInHome } from './home/signed-in.ts'
export { signedOutHome } from './home/signed-out.ts'
export { layout, type Visitor } from './layout.ts'
export { consentPage, type OAuthPage, refusalPage } from './oauth.ts'
export { ownerActionsKey, ownerActionsOf } from './owner/actions.ts'
export { deletePage } from './owner/delete.ts'
export { type EditView, editPage, type Newline } from './owner/edit.ts'
export { type NoticeKey, noticeOf } from './owner/notices.ts'
export { csrfField, type FieldErrors } from './owner/parts.ts'
export {
  type AccessForm,
  accessFields,
  accessFormOf,
  createdLinkPage,
  type LinkForm,
  type LinkLifetime,
  linkLifetimes,
  type SettingsView,
  settingsPage,
} from './owner/settings.ts'
export { PREVIEW_ID, type PreviewDiff, type PreviewView, previewSection } from './preview.ts'
export { type NewArtifactValues, type NewArtifactView, newArtifactPage, type ProjectChoice, typeNames } from './publish/new-artifact.ts'
export { type NewProjectValues, type NewProjectView, newProjectPage } from './publish/new-project.ts'
export type { SlugCheck } from './publish/slug-field.ts'
export {
  type DocumentView,
  diagramFigure,
  framesScript,
  type RenderedDisplay,
  renderedBody,
  renderedFrame,
  viewTabs,
} from './rendered.ts'
export type { SearchValues } from './search/form.ts'
export { type SearchOutcome, type SearchView, searchPage } from './search/page.ts'
export { stylesheet } from './stylesheet.ts'
export {
  artifactParams,
  artifactPath,
  devProviderPath,
  ownerPath,
  ownerPaths,
  type ParamsOf,
  parseProjectRef,
  projectPath,
  projectRef,
  signInPath,
  stylesheetPath,
  type WebMethod,
  type WebRoute,
  type WebRouteName,
  webRoutes,
  workspaceSettingsPath,
} from './web-routes.ts'
