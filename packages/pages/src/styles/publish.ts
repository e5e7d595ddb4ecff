/**
 * The create forms (`/new`, `/new/project`): the slug with its check and free alternatives, the
 * content box beside the file picker, the access fields; and the "New" links that lead there.
 */
export const publishStyles = `
header.site .button.compact, header.site button.compact { min-height: 34px; padding: 0 12px; font-size: 14px; }
.browse-head .actions { margin-top: 12px; }
.publish-page .lede code, .publish-page .hint code { font-size: 13px; }
.slug-row { display: flex; gap: 8px; align-items: stretch; }
.slug-row input { flex: 1 1 auto; min-width: 0; }
.slug-row button { flex: none; }
.slug-check:empty { display: none; }
.slug-result { margin: 8px 0 0; font-size: 14px; overflow-wrap: anywhere; }
.slug-result.free { color: var(--ok); font-weight: 600; }
.slug-result.refused { color: var(--danger); font-weight: 600; }
.slug-alternatives { list-style: none; display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 0; padding: 0; }
.slug-alternatives code { font-size: 13px; background: none; padding: 0; }
fieldset.content-fields, fieldset.access-fields {
  border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 16px 4px; margin: 0 0 20px; background: var(--surface);
}
fieldset.content-fields legend, fieldset.access-fields legend { font-weight: 600; padding: 0 6px; }
fieldset.access-fields > .hint { margin: 0 0 8px; }
.owner-form input[type="file"] { display: block; width: 100%; padding: 10px 12px; border: 1px dashed var(--line); border-radius: 8px; background: var(--bg); font: inherit; }
.owner-form textarea#description { min-height: 4em; font: inherit; }
@media (max-width: 640px) {
  fieldset.content-fields, fieldset.access-fields { padding: 10px 12px 2px; }
}
`
