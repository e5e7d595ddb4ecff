import type { Failure } from '@quire/core'
import { sendFailure } from '@quire/web-http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A read of an artifact that failed, as a page for a person (a problem for a script). */
export function refuseArtifact(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  if (failure.code === 'not_found')
    return sendFailure(request, reply, {
      code: 'not_found',
      title: 'Not found',
      message: request.session
        ? 'There is no artifact here, or it is not shared with you.'
        : 'There is no artifact here, or it is private: sign in with an account it is shared with.',
    })
  return sendFailure(request, reply, { code: failure.code, title: 'This artifact cannot be shown', message: failure.message })
}

/** A refusal of an owner's action, with the failure its operation answers (404 for what the person cannot see, 403…). */
export function refuseAction(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  if (failure.code === 'not_found') return refuseArtifact(request, reply, failure)
  return sendFailure(request, reply, { code: failure.code, title: 'You cannot do this here', message: failure.message })
}
