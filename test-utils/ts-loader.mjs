// Lets a child process run the TypeScript sources directly: `node --import ./test-utils/ts-loader.mjs file.ts`.
// Tests spawn real processes (SIGKILL, several replicas) against src/ without a build step.
import { register } from 'node:module'

register('./ts-hooks.mjs', import.meta.url)
