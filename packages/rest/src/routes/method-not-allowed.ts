import { type OperationSpec, operations } from '@quire/core'
import { sendFailure } from '@quire/http-edge'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Each path of the operation table as a pattern of the URL's path, with the methods it answers. */
const routes: ReadonlyArray<{ readonly pattern: RegExp; readonly methods: ReadonlySet<string> }> = (() => {
  const byPath = new Map<string, Set<string>>()
  for (const op of Object.values(operations) as OperationSpec[]) {
    const methods = byPath.get(op.path) ?? new Set<string>()
    methods.add(op.method)
    // Fastify answers HEAD wherever it answers GET.
    if (op.method === 'GET') methods.add('HEAD')
    byPath.set(op.path, methods)
  }
  return [...byPath].map(([path, methods]) => ({
    pattern: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`),
    methods,
  }))
})()

/** The methods the operation table answers at this path (none: no operation lives there). */
export function methodsAt(path: string): string[] {
  const allowed = new Set<string>()
  for (const route of routes) if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method)
  return [...allowed].sort()
}

/**
 * A request no route took: 405 with `Allow` when operations live at its path under other methods
 * (RFC 9110 §15.5.6), else the 404 of a path with nothing there.
 */
export function handleUnrouted(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? ''
  const allowed = methodsAt(path)
  if (allowed.length === 0) return sendFailure(reply, { code: 'not_found', message: `No route ${request.method} ${path}.` })
  reply.header('allow', allowed.join(', '))
  return sendFailure(reply, {
    code: 'method_not_allowed',
    message: `${request.method} is not an operation of ${path}; it answers ${allowed.join(', ')}.`,
  })
}
