export { type AppOptions, buildApp } from './app.ts'
export { createRuntime, databaseConfig, type Runtime } from './container.ts'
export { type Env, readEnv } from './env.ts'
