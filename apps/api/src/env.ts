import { type Env, readEnv as readSettings, settingsOrExit } from '@quire/runtime'

/** The API's settings from this process's environment: the only reader of process.env here. */
export function readEnv(): Env {
  return settingsOrExit(() => readSettings(process.env))
}
