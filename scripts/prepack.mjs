#!/usr/bin/env node
/**
 * `npm pack` and `npm publish` run this first (package.json "prepack"): dist/ is built, so a tarball
 * packed from a fresh clone ships the code and its declarations. A complete build newer than every
 * source is kept as it is (CI builds once, then packs several times); anything else is rebuilt with
 * `npm run build`: no dist/, a build without declarations (the test runs' quick one), a declaration
 * not yet through scripts/optional-peer-types.mjs, or a source changed since.
 */
import { execSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MARKER } from './optional-peer-types.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const INPUTS = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json', 'scripts/optional-peer-types.mjs', 'scripts/lua-sources.mjs']

/** Every file package.json's exports and bin point at in dist/. */
export function builtFiles(pkg) {
  const targets = Object.values(pkg.exports).flatMap((entry) => Object.values(entry))
  return [...new Set([...targets, './dist/cli/main.js'])].map((path) => path.replace(/^\.\//, ''))
}

/** Why dist/ under `root` must be built again, or undefined when it is complete and current. */
export function staleBecause(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const files = builtFiles(pkg)
  const missing = files.find((file) => !existsSync(join(root, file)))
  if (missing) return `${missing} is missing`
  const oldest = Math.min(...files.map((file) => statSync(join(root, file)).mtimeMs))
  const newest = Math.max(...INPUTS.map((input) => newestMtime(join(root, input))))
  if (newest > oldest) return 'a source is newer than the build'
  const store = join(root, 'dist', 'backends', 'sqlite', 'index.d.ts')
  if (existsSync(store) && !readFileSync(store, 'utf8').includes(MARKER)) return 'the declarations were not marked for optional peers'
  return undefined
}

function newestMtime(path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const why = staleBecause(ROOT)
  if (why === undefined) {
    console.error('prepack: dist/ is complete and newer than every source; packing it as it is')
  } else {
    console.error(`prepack: building dist/ (${why}): npm run build`)
    execSync('npm run build', { cwd: ROOT, stdio: ['ignore', process.stderr, 'inherit'] })
  }
}
