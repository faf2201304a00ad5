#!/usr/bin/env node
// The botmesh command: starts the built CLI (npm run build makes dist/).
import { run } from '../dist/cli/main.js'

await run(process.argv.slice(2))
