import { defineConfig } from 'tsup'
import { packageBuild } from '../../tooling/tsup.config.ts'

export default defineConfig(packageBuild())
