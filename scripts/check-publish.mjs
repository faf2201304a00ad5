#!/usr/bin/env node
/**
 * `npm run check:package`'s last step: `npm publish --dry-run` as a release would run it (prepack
 * included), which must be clean and ship the package's code. It fails on any npm warning (a field
 * npm corrects, a script it drops, a file it leaves out) but the one about not being logged in,
 * which a dry run off a release machine always prints; and when the tarball lacks a file that
 * package.json's exports or bin points at, or every declaration of dist/.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { builtFiles } from './prepack.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const LOGIN = /requires you to be logged in/

const run = spawnSync('npm', ['publish', '--dry-run', '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
const problems = []
if (run.status !== 0) problems.push(`npm publish --dry-run exited ${run.status}:\n${run.stderr}`)
const warnings = run.stderr.split('\n').filter((line) => /^npm (warn|error|ERR)/i.test(line) && !LOGIN.test(line))
problems.push(...warnings)

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
let shipped = new Set()
try {
  shipped = new Set(JSON.parse(run.stdout)[pkg.name].files.map((file) => file.path))
} catch {
  problems.push(`npm publish --dry-run --json printed no file list:\n${run.stdout.slice(0, 500)}`)
}
const wanted = [...builtFiles(pkg), ...Object.values(pkg.bin).map((path) => path.replace(/^\.\//, ''))]
for (const file of wanted) if (!shipped.has(file)) problems.push(`the tarball lacks ${file}`)

if (problems.length > 0) {
  console.error(`check-publish: npm publish --dry-run is not clean:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
const declarations = [...shipped].filter((file) => file.startsWith('dist/') && file.endsWith('.d.ts')).length
console.log(`check-publish: npm publish --dry-run is clean: ${shipped.size} files, ${declarations} declarations, every export and bin`)
