// Module hooks for ts-loader.mjs: resolve `./x.js` to `./x.ts` when only the .ts exists, and compile .ts/.tsx with esbuild.
import { readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

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
    const source = await readFile(fileURLToPath(url), 'utf8')
    const { code } = await transform(source, {
      loader: url.endsWith('x') ? 'tsx' : 'ts',
      format: 'esm',
      target: 'node20',
      jsx: 'automatic',
      sourcemap: 'inline',
      sourcefile: fileURLToPath(url),
    })
    return { format: 'module', source: code, shortCircuit: true }
  }
  return nextLoad(url, context)
}
