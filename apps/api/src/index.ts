export { type AppOptions, buildApp, edgeOptions } from './app.ts'
export { createRuntime, databaseConfig, type Runtime } from './container.ts'
export { type Env, readEnv } from './env.ts'
