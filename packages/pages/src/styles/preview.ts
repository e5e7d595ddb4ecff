/**
 * The preview of an unsaved document (preview.ts): a dashed frame in the accent colour with its
 * label on the border, so it cannot pass for the saved page. The document inside keeps the
 * artifact page's look. Only the shared variables, so light and dark follow `prefers-color-scheme`;
 * the diff colours come from styles/history.ts.
 */
export const previewStyles = `
.preview {
  /* Room above for the label on the border when the page opens at the preview (…/edit#preview). */
  position: relative; scroll-margin-top: 24px; margin: 22px 0 28px; padding: 26px 22px 22px; border-radius: var(--radius);
  border: 2px dashed color-mix(in srgb, var(--accent) 65%, var(--line)); background: color-mix(in srgb, var(--accent) 5%, var(--bg));
}
.preview-label {
  position: absolute; top: -14px; left: 18px; margin: 0; padding: 2px 12px; border-radius: 999px;
  background: var(--accent); color: var(--accent-text); font-size: 13px; font-weight: 700; letter-spacing: .2px;
}
.preview-head { margin: 0 0 16px; }
.preview-head h2 { font-size: 20px; margin: 0 0 4px; overflow-wrap: anywhere; }
.preview-note { color: var(--muted); font-size: 14px; margin: 0; }
.preview-stat { display: flex; flex-wrap: wrap; gap: 2px 12px; align-items: baseline; font-size: 14px; margin: 4px 0 0; }
.preview-stat a { text-decoration: underline; text-underline-offset: 2px; font-weight: 600; }
.preview a:focus-visible, .preview .diff-scroll:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 55%, transparent); outline-offset: 2px; border-radius: 4px; }
.preview-changes { margin: 24px 0 0; }
.preview-changes h3 { font-size: 16px; margin: 0 0 10px; display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: baseline; }
.preview-changes h3 .meta { font-size: 14px; font-weight: 400; display: inline-flex; gap: 12px; }
.preview-changes .notice, .preview-changes .diff-scroll { margin: 0; }
.preview-changes .notice + .diff-scroll { margin-top: 12px; }
@media (max-width: 640px) {
  .preview { padding: 24px 12px 14px; margin-top: 20px; }
  .preview-label { left: 12px; }
}
`
