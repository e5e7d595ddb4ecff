import { type Scope, scopes } from '@quire/core'
import { type ApiKey, type CreatedApiKey, fieldLimits } from '@quire/core/contract'
import { html, type SafeHtml } from '@quire/render'
import { type Listing, pager } from '../browse.ts'
import { timeTag } from '../history.ts'
import type { Visitor } from '../layout.ts'
import { webRoutes } from '../web-routes.ts'
import { type FormState, formError, hiddenFields, textField } from './forms.ts'
import { type NoticeKey, settingsPage } from './frame.ts'

/** The key's name as the operation's schema bounds it. */
const nameLimits = fieldLimits('createApiKey', '/body/name')

/** What each scope lets a key do, in the words of docs/decisions.md ("Which scope gates what"). */
const scopeMeanings: Record<Scope, string> = {
  'artifacts:read': 'Read artifacts, versions, projects, workspaces and audit trails',
  'artifacts:create': 'Create artifacts, projects and workspaces',
  'artifacts:update': 'Append and restore versions; change the username',
  'artifacts:delete': 'Delete artifacts',
  'artifacts:share': 'Create and revoke share links and workspace invitations',
  'artifacts:access:read': 'Read access settings and member lists',
  'artifacts:access:write': 'Change access settings',
  'agents:manage': 'List, create and revoke API keys',
  'webhooks:write': 'Create and manage webhooks',
}

/** Checked on a fresh form: reading is what most keys are for. */
const defaultScopes: readonly Scope[] = ['artifacts:read']

export interface KeysView {
  readonly keys: Listing<ApiKey>
  readonly cursor: string | undefined
  readonly visitor: Visitor
  readonly csrfToken: string
  readonly notice: NoticeKey | null
  /** The create form after a refusal (what was typed and ticked kept); null for a fresh one. */
  readonly form: FormState | null
  /** The ticked scopes of a refused form. */
  readonly checkedScopes: readonly string[] | null
  readonly idempotencyKey: string
}

/** One key: what it is called, how to recognise it, what it may do, its dates, and the way to revoke it. */
function keyItem(key: ApiKey, csrfToken: string): SafeHtml {
  return html`<li class="key">
  <div class="listing-main">
    <p class="key-name"><strong>${key.name}</strong> <code>${key.prefix}…</code>${key.status === 'expired' ? html` <span class="badge warn">expired</span>` : null}</p>
    <p class="key-scopes">${key.scopes.map((s) => html`<span class="badge">${s}</span> `)}</p>
    <p class="listing-meta">
      <span>Created ${timeTag(key.createdAt)}</span>
      <span>Last used ${key.lastUsedAt ? timeTag(key.lastUsedAt) : 'never'}</span>
      <span>${key.expiresAt ? html`Expires ${timeTag(key.expiresAt)}` : 'Never expires'}</span>
    </p>
  </div>
  <form class="inline row-action" method="post" action="${webRoutes.apiKeyRevoke.path({ apiKeyId: key.id })}">
    ${hiddenFields(csrfToken)}
    <button type="submit" class="danger">Revoke<span class="sr-only"> key ${key.name}</span></button>
  </form>
</li>`
}

/** The scopes as checkboxes in a fieldset, each with what it allows. */
function scopeChoices(checked: readonly string[], error: string | undefined): SafeHtml {
  return html`<fieldset class="field choices${error ? ' invalid' : ''}"${error ? html` aria-describedby="scopes-error"` : null}>
  <legend>Scopes</legend>
  <p class="field-hint">A key never does more than you may, whatever its scopes.</p>
  ${error ? html`<p class="field-error" id="scopes-error">${error}</p>` : null}
${scopes.map(
  (scope) =>
    html`  <label class="check" for="scope-${scope.replace(/:/g, '-')}"><input type="checkbox" id="scope-${scope.replace(/:/g, '-')}" name="scopes" value="${scope}"${
      checked.includes(scope) ? html` checked` : null
    }><span><code>${scope}</code> <span class="muted">${scopeMeanings[scope]}</span></span></label>\n`,
)}</fieldset>`
}

/** `/settings/keys`: the person's keys and the form to create one. */
export function keysPage(view: KeysView): string {
  const { form } = view
  return settingsPage(
    { title: 'API keys', section: 'keys', visitor: view.visitor, notice: view.notice },
    html`<section class="account-section" aria-labelledby="keys-heading">
  <h1 id="keys-heading">API keys</h1>
  <p class="muted">Keys let scripts, the CLI and agents act for you: send one as <code>Authorization: Bearer &lt;key&gt;</code>. Revoking a key stops it at once.</p>
  ${
    view.keys.items.length === 0
      ? html`<p class="muted empty">You have no API keys${view.cursor ? ' on this page' : ''}.</p>`
      : html`<ul class="listing keys" aria-label="Your API keys">
${view.keys.items.map((key) => keyItem(key, view.csrfToken))}</ul>`
  }
  ${pager((cursor) => webRoutes.apiKeys.path({}, { cursor }), view.cursor, view.keys.nextCursor)}
</section>
<section class="card account-card" aria-labelledby="new-key-heading">
  <h2 id="new-key-heading">Create an API key</h2>
  <form class="account-form" method="post" action="${webRoutes.apiKeys.path()}" novalidate>
    ${hiddenFields(view.csrfToken, view.idempotencyKey)}
    ${formError(form?.formError ?? null)}
    ${textField({
      id: 'key-name',
      name: 'name',
      label: 'Name',
      value: form?.values.name ?? '',
      error: form?.errors.name,
      hint: 'What will use it, e.g. “CI publishing”. 1–100 characters.',
      required: true,
      maxLength: nameLimits.maxLength,
      autocomplete: 'off',
    })}
    ${scopeChoices(view.checkedScopes ?? defaultScopes, form?.errors.scopes)}
    ${textField({
      id: 'key-expires',
      name: 'expires',
      label: 'Expires on (optional)',
      type: 'date',
      value: form?.values.expires ?? '',
      error: form?.errors.expires,
      hint: 'The key stops working at the end of this day (UTC). Leave empty for a key that does not expire.',
    })}
    <div class="form-actions"><button type="submit">Create key</button></div>
  </form>
</section>`,
  )
}

/**
 * The answer to creating a key: the only time its secret is shown, in a read-only field to copy
 * from. A resubmitted form (a reload of this answer) replays the creation: the key exists, the
 * secret is gone, and the page says so.
 */
export function createdKeyPage(view: { key: CreatedApiKey; visitor: Visitor }): string {
  const { key } = view
  return settingsPage(
    { title: 'API key created', section: 'keys', visitor: view.visitor },
    html`<section class="card account-card secret-card" aria-labelledby="created-heading">
  <h1 id="created-heading">API key created</h1>
  ${
    key.secret
      ? html`<p class="notice warning" role="alert"><strong>Copy this key now: you will not see it again.</strong> Quire keeps only a hash of it, so no one can show it to you later.</p>
  <div class="field">
    <label for="new-key-secret">Your new key “${key.name}”</label>
    <input id="new-key-secret" class="secret" type="text" value="${key.secret}" readonly spellcheck="false" autocomplete="off" autocapitalize="none" aria-describedby="new-key-use">
    <p class="field-hint" id="new-key-use">Select it and copy it. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
  </div>`
      : html`<p class="notice warning" role="alert"><strong>This key was already created by this form, and its secret was shown then.</strong> It cannot be shown again: if you did not copy it, revoke the key and create a new one.</p>`
  }
  <dl class="facts">
    <dt>Name</dt><dd>${key.name}</dd>
    <dt>Starts with</dt><dd><code>${key.prefix}…</code></dd>
    <dt>Scopes</dt><dd>${key.scopes.join(', ')}</dd>
    <dt>Expires</dt><dd>${key.expiresAt ? timeTag(key.expiresAt) : 'never'}</dd>
  </dl>
  <div class="actions"><a class="button" href="${webRoutes.apiKeys.path()}">Done</a></div>
</section>`,
  )
}
