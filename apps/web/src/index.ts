export { createDevProvider, type DevProvider, DevProviderRefused, safeReturnTo } from '@quire/sign-in'
export { buildWebApp, type WebAppOptions, webAppOptions } from './app.ts'
export { readServerEnv, readWebEnv, type WebEnv } from './env.ts'
export { sessionSecretOf } from './session-secret.ts'
