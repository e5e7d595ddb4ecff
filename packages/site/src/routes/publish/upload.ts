import multipart, { type MultipartFile } from '@fastify/multipart'
import { registerTextRule } from '@quire/web-http'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** A file sent with a form: its text, or why it cannot be a document. */
export interface Upload {
  readonly fileName: string
  /** Its text (a byte-order mark dropped), or null when refused. */
  readonly text: string | null
  /** Bytes received: up to the limit and one more for a file over it. */
  readonly size: number
  readonly problem: 'too_large' | 'not_text' | null
}

const uploads = new WeakMap<FastifyRequest, Upload>()

/** The file the form sent, or null when none was chosen. */
export function uploadOf(request: FastifyRequest): Upload | null {
  return uploads.get(request) ?? null
}

/** UTF-8 text without NUL (a NUL is what a binary file has and no document does); else null. */
function textOf(bytes: Buffer): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return text.includes('\0') ? null : text
  } catch {
    return null
  }
}

/**
 * Multipart forms in the scope it is registered in (the new-artifact form's): every field as text
 * on `request.body`, as a plain form has them, and one file read into memory up to the content
 * limit and one byte more, so that a file over it is told from one at it without being kept
 * whole. A file is decoded here and put aside (`uploadOf`); the body names only its file name. A
 * text field is bounded at twice the limit, so a paste over it still comes back to be cut down.
 * The text rule runs again once the fields are parsed (the app's own ran before the parts were
 * read), and the session's CSRF check reads the token from the parsed fields as from any form.
 */
export async function registerUploads(scope: FastifyInstance, contentBytes: number): Promise<void> {
  await scope.register(multipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: contentBytes + 1, files: 1, fields: 40, parts: 41, fieldSize: contentBytes * 2, fieldNameSize: 100 },
    async onFile(this: FastifyRequest, part: MultipartFile) {
      const bytes = await part.toBuffer()
      // Put aside, so only the name is on the body (`keyValues` takes a part's `value`).
      ;(part as MultipartFile & { value: string }).value = part.filename
      // A form with no file chosen still sends the part, nameless and empty.
      if (part.filename === '' && bytes.length === 0) return
      const tooLarge = part.file.truncated || bytes.length > contentBytes
      const text = tooLarge ? null : textOf(bytes)
      uploads.set(this, {
        fileName: part.filename,
        text,
        size: bytes.length,
        problem: tooLarge ? 'too_large' : text === null ? 'not_text' : null,
      })
    },
  })
  registerTextRule(scope)
}
