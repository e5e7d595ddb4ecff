/**
 * What a preview capability names: one version of an artifact as the content origin renders it,
 * or, for a Markdown version, one of its Mermaid diagrams.
 */
export interface PreviewTarget {
  readonly artifactId: string
  readonly versionNumber: number
  /** The diagram's index among the version's ```` ```mermaid ```` fences (Markdown only); absent: the whole version. */
  readonly diagram?: number
}

/** A capability URL on the content origin, and when it stops working. */
export interface PreviewLink {
  readonly url: string
  readonly expiresAt: Date
}

/**
 * The content origin's capabilities (CONTENT_URL): unguessable, expiring, version-pinned URLs,
 * signed with a server key. Minted only for a caller the policy let read the version; the URL is
 * then the only credential the content origin asks for, so a leaked one works until it expires
 * (at most ten minutes).
 */
export interface PreviewLinks {
  /** The content origin (scheme, host, port), without a trailing slash. */
  readonly origin: string
  mint(target: PreviewTarget, now: Date): Promise<PreviewLink>
  /** What a capability names, when it is well-formed, signed with our key and not expired at `now`; null otherwise. */
  open(token: string, now: Date): Promise<PreviewTarget | null>
}
