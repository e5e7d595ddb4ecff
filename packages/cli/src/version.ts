import { createRequire } from 'node:module'

/** The CLI's version, from its package.json (one level above both src/ and dist/). */
export const cliVersion: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version
