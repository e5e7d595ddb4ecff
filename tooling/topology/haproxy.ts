/**
 * HAProxy for the topology (docs/deploy.md shows the same, annotated): two HTTP frontends, web and
 * api, each round-robin over its processes without stickiness (every process can serve every
 * request: sessions, sign-ins in progress, OAuth codes and rate limits live in PostgreSQL, signed
 * cookies or Redis). Servers are checked with GET /health every 500 ms (down after 2 failures, up
 * after 1 success: fast, for tests). Each answer names the process that gave it (X-Served-By).
 *
 * Retries: a request whose connection failed was never seen by a process, so it is always retried
 * (on another server: `option redispatch`). Retrying on an empty response or a timeout replays a
 * request that a process may have carried out: only for GET and HEAD (`disable-l7-retry` for the
 * rest). A POST cut off by a dying process is answered 502/503 and the client decides (the API's
 * Idempotency-Key makes its retry safe).
 */
export interface Server {
  readonly name: string
  readonly port: number
}

export function haproxyConfig(options: {
  apiPort: number
  webPort: number
  statsPort: number
  api: readonly Server[]
  web: readonly Server[]
  /** The standalone development OpenID provider, behind the web frontend at /dev-oidc. */
  idp: Server | null
}): string {
  const servers = (list: readonly Server[]) => list.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check`).join('\n')
  return `global
  maxconn 4096

defaults
  mode http
  log stdout format raw local0 err
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout http-request 10s
  option forwardfor
  option httpchk GET /health
  http-check expect status 200
  default-server inter 500 fall 2 rise 1
  retries 3
  option redispatch
  retry-on conn-failure empty-response response-timeout

frontend web
  bind 127.0.0.1:${options.webPort}
  http-request disable-l7-retry if !METH_GET
${options.idp ? '  use_backend idp if { path_beg /dev-oidc }\n' : ''}  default_backend web

frontend api
  bind 127.0.0.1:${options.apiPort}
  http-request disable-l7-retry if !METH_GET
  default_backend api

backend web
  balance roundrobin
  http-response set-header X-Served-By %s
${servers(options.web)}

backend api
  balance roundrobin
  http-response set-header X-Served-By %s
${servers(options.api)}
${options.idp ? `\nbackend idp\n  http-response set-header X-Served-By %s\n${servers([options.idp])}\n` : ''}
listen stats
  bind 127.0.0.1:${options.statsPort}
  stats enable
  stats uri /stats
`
}
