// Module hooks for ts-loader.mjs: resolve `./x.js` to `./x.ts` when only the .ts exists, and compile .ts/.tsx with esbuild.
// The compiled code is kept in a cache under the temp dir, keyed by the source's content: the tests
// start hundreds of child processes (SIGKILL runs, replicas), and each would otherwise compile the
// same few hundred files again (about 1.5 s of a child's start on this machine, 0.1 s from the cache).
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Where compiled files are kept; BOTMESH_TS_CACHE overrides it, BOTMESH_TS_CACHE=off turns it off. */
const CACHE_DIR = process.env.BOTMESH_TS_CACHE ?? join(tmpdir(), 'botmesh-ts-cache')
/** Part of every key: change it when the compile options below change. */
const OPTIONS_VERSION = 'esm-node20-inline-map-1'

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
    for (const ext of ['.ts', '.tsx']) {
      const candidate = new URL(specifier.slice(0, -3) + ext, context.parentURL)
      if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true, format: 'module' }
    }
  }
  return nextResolve(specifier, context)
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && /\.tsx?$/.test(url)) {
    const file = fileURLToPath(url)
    const source = await readFile(file, 'utf8')
    return { format: 'module', source: await compiled(file, source), shortCircuit: true }
  }
  return nextLoad(url, context)
}

/** The module's JavaScript: from the cache when this source (at this path) was compiled before. */
async function compiled(file, source) {
  if (CACHE_DIR === 'off') return compile(file, source)
  // The path is part of the key: the inline source map names it.
  const key = createHash('sha256').update(OPTIONS_VERSION).update('\0').update(file).update('\0').update(source).digest('hex')
  const cached = join(CACHE_DIR, `${key}.js`)
  try {
    return await readFile(cached, 'utf8')
  } catch {
    const code = await compile(file, source)
    // Written aside and renamed: a child killed mid-write, or another one writing the same key, never leaves half a file.
    mkdirSync(CACHE_DIR, { recursive: true })
    const aside = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`
    await writeFile(aside, code)
    await rename(aside, cached)
    return code
  }
}

async function compile(file, source) {
  // Loaded only on a miss: a child whose every module is cached never starts esbuild's service.
  const { transform } = await import('esbuild')
  const { code } = await transform(source, {
    loader: file.endsWith('x') ? 'tsx' : 'ts',
    format: 'esm',
    target: 'node20',
    jsx: 'automatic',
    sourcemap: 'inline',
    sourcefile: file,
  })
  return code
}
