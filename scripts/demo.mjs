#!/usr/bin/env node
/**
 * `npm run demo` (the README's first command): builds dist/ with tsup, saying what it does and how
 * long it took (a fresh clone's build takes a minute or more, which was a blank screen), then runs
 * `botmesh demo` with the arguments given (`npm run demo -- --no-dashboard`).
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')

/** The build step: tsup, its own output silenced (this script says what happens instead). */
export const BUILD = { command: 'tsup', args: ['--silent'] }

/**
 * Runs `build`, a line before it and one after with its time, then `run`; resolves with the exit
 * code (the build's when it failed). `spawnStep` runs one command with the terminal's stdio.
 */
export async function buildThenRun({ build = BUILD, run, print, now = Date.now, spawnStep = spawnInherited }) {
  print('botmesh demo: building dist/ with tsup first (a fresh clone takes a minute or more)…')
  const started = now()
  const built = await spawnStep(build.command, build.args)
  const seconds = ((now() - started) / 1_000).toFixed(1)
  if (built !== 0) {
    print(`botmesh demo: the build failed after ${seconds} s (exit code ${built}); see tsup's errors above`)
    return built
  }
  print(`botmesh demo: built in ${seconds} s; starting the demo`)
  return spawnStep(run.command, run.args)
}

/** Runs a command with the terminal's stdio; resolves with its exit code (1 for a signal). */
function spawnInherited(command, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' })
    child.on('error', reject)
    child.on('exit', (code) => resolvePromise(code ?? 1))
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const run = { command: process.execPath, args: [resolve(ROOT, 'bin', 'botmesh.js'), 'demo', ...process.argv.slice(2)] }
  // Ctrl-C reaches the demo too (one process group): it closes its dashboard, then this script ends with it.
  process.on('SIGINT', () => undefined)
  process.exitCode = await buildThenRun({ run, print: (line) => console.log(line) })
}
