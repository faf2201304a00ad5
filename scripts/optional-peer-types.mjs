#!/usr/bin/env node
/**
 * After tsup: makes the declarations in dist/ compile in a strict consumer (`skipLibCheck: false`)
 * without the optional peer dependencies it does not use. A store's declarations import its driver's
 * types (`import { Pool } from 'pg'`); where the driver is absent that line is TS2307 ("Cannot find
 * module 'pg'"), and where it is installed without types TS7016. Each import or export of an
 * optional peer (package.json `peerDependenciesMeta`) gets a `// @ts-ignore` line above it: with the
 * peer's types installed the consumer sees them, without them those types are `any`, and the peer
 * stays optional in the types as it is at run time. `.ci/packed-types` checks a consumer per store.
 * Running it twice changes nothing more. Usage: node scripts/optional-peer-types.mjs [dist]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
export const MARKER = '// @ts-ignore: an optional peer dependency; its types are `any` where it is not installed'

/** The optional peers of package.json. */
export function optionalPeers(pkg) {
  return Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta?.optional === true)
    .map(([name]) => name)
}

/** A declaration file's text with the marker above every line that names an optional peer's module. */
export function markOptionalPeers(text, peers) {
  const names = peers.map((peer) => peer.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')
  const names_a_peer = new RegExp(`(?:from\\s+|import\\s*\\(\\s*|require\\s*\\(\\s*)(['"])(?:${names})(?:/[^'"]*)?\\1`)
  const out = []
  for (const line of text.split('\n')) {
    if (names_a_peer.test(line) && out.at(-1)?.trim() !== MARKER) out.push(MARKER)
    out.push(line)
  }
  return out.join('\n')
}

function declarationFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.d\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dist = resolve(ROOT, process.argv[2] ?? 'dist')
  const peers = optionalPeers(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')))
  let marked = 0
  for (const file of declarationFiles(dist)) {
    const text = readFileSync(file, 'utf8')
    const next = markOptionalPeers(text, peers)
    if (next !== text) {
      writeFileSync(file, next)
      marked++
    }
  }
  console.log(`optional-peer-types: ${marked} declaration file(s) in ${dist} import an optional peer, each such import marked`)
}
