import { SafeHtml } from './html.ts'

/** A tag of rendered markup: `<` starts one only as a tag, since text and attribute values carry it as `&lt;`. */
const TAG = /<[a-zA-Z][^>]*>/g
/**
 * The attributes that name or point at an id: `id`, a label's `for`, and a link to a place in the
 * document (`href="#…"`). Values are always double-quoted and never hold a raw `"`, so an attribute
 * cannot begin inside another's value.
 */
const REFERENCE = /(\s(?:id|for)=")([^"]*)"|(\shref="#)([^"]*)"/g

/**
 * A rendered document (`renderArtifact`'s markup) with every id it holds, and every in-document
 * link and label pointing at one, prefixed with `prefix`. A document shown inside another page
 * (a preview above the form it was typed in) then cannot take an id the page uses: a heading
 * "Content" would otherwise become `id="content"` and capture the form's `<label for="content">`.
 * The document's own anchors, footnotes and task items still point at each other. Relies on the
 * markup being this package's output (sanitised or escaped): in any other it would be unsafe.
 * `prefix`: a letter, then letters, digits, hyphens (it goes into the markup as it is).
 */
export function scopeIds(markup: SafeHtml, prefix: string): SafeHtml {
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(prefix))
    throw new Error(`scopeIds: an id prefix must be letters, digits and hyphens, not ${JSON.stringify(prefix)}`)
  const scoped = markup.text.replace(TAG, (tag) =>
    tag.replace(REFERENCE, (_all, attribute: string | undefined, id: string | undefined, link: string, target: string) =>
      attribute !== undefined ? `${attribute}${prefix}${id}"` : `${link}${prefix}${target}"`,
    ),
  )
  return new SafeHtml(scoped)
}
