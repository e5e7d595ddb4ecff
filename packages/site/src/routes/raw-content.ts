import type { ContentRead } from '@quire/core'
import type { FastifyReply } from 'fastify'

/** Sends a version's content as text, never a document of this origin: whatever its type, nothing in it runs. */
export function sendRawContent(reply: FastifyReply, read: ContentRead): FastifyReply {
  return reply
    .type('text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .send(read.content.content)
}
