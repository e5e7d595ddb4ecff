import { randomBytes } from 'node:crypto'
import type { PreviewLinks, PreviewTarget } from '@quire/core'
import type { ServerKeyStore } from '@quire/storage'
import { errors, jwtVerify, SignJWT } from 'jose'

/**
 * How long a capability lives: minted for the current five-minute window, it expires at the end
 * of the next one, so between five and ten minutes. Everyone reading a version in the same window
 * gets the same URL, so a page that embeds one can be cached for the window (its ETag names it).
 */
export const PREVIEW_WINDOW_SECONDS = 300

/** Distinguishes these tokens from any other the server signs (they never share a key, but say so anyway). */
const audience = 'quire:content'

/** The path of a capability on the content origin. */
export function previewPath(token: string): string {
  return `/d/${token}`
}

/** The content origin's capabilities, signed (HS256, with jose) with `key`. */
export function previewLinks(options: { origin: string; key: string }): PreviewLinks {
  const secret = new TextEncoder().encode(options.key)
  const origin = options.origin.replace(/\/+$/, '')
  return {
    origin,
    async mint(target, now) {
      const window = Math.floor(now.getTime() / 1000 / PREVIEW_WINDOW_SECONDS)
      const exp = (window + 2) * PREVIEW_WINDOW_SECONDS
      // No iat, no jti: the same target in the same window is the same URL (see above).
      const token = await new SignJWT(
        target.diagram === undefined ? { v: target.versionNumber } : { v: target.versionNumber, d: target.diagram },
      )
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(target.artifactId)
        .setAudience(audience)
        .setExpirationTime(exp)
        .sign(secret)
      return { url: `${origin}${previewPath(token)}`, expiresAt: new Date(exp * 1000) }
    },
    async open(token, now) {
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          audience,
          currentDate: now,
          clockTolerance: 0,
          requiredClaims: ['sub', 'exp'],
        })
        const { sub, v, d } = payload as { sub?: unknown; v?: unknown; d?: unknown }
        if (typeof sub !== 'string' || !Number.isSafeInteger(v) || (v as number) < 1) return null
        if (d !== undefined && !(Number.isSafeInteger(d) && (d as number) >= 0)) return null
        const target: PreviewTarget = { artifactId: sub, versionNumber: v as number, ...(d === undefined ? {} : { diagram: d as number }) }
        return target
      } catch (error) {
        // A forged, altered, expired or malformed token: no preview, whichever it was.
        if (error instanceof errors.JOSEError || error instanceof TypeError) return null
        throw error
      }
    },
  }
}

/**
 * The key capabilities are signed with: CONTENT_SIGNING_KEY when set (every process of a
 * deployment must share it), else one made once and kept in the database, which they all read.
 */
export async function previewKey(configured: string | undefined, keys: ServerKeyStore): Promise<string> {
  return configured ?? (await keys.keyFor('content_signing', () => randomBytes(32).toString('base64url')))
}
