/**
 * docs/architecture.md names the repository's folders and files: every one it names must exist, and
 * the folder table must place the message's path where the code has it. Issue 45, item 7: the
 * table put admission, the message's run and the senders in `src/core/pipeline/` after they had
 * moved to the engine's rooms (`src/core/durability/admission/`, `run/`, `outbox/`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..', '..')
const PAGE = 'docs/architecture.md'
/** Where a path a page names starts; anything else in backticks is code, an option or a package subpath. */
const TOP = /^(?:src|test|test-utils|scripts|docs|bench|bin|\.ci)\//
/** A file named on its own, found wherever it lives under these folders. */
const FILE = /^\.?[\w.-]+\.(?:ts|tsx|mjs|cjs|json|md)$/
const SEARCHED = ['src', 'test', 'test-utils', 'scripts', 'bench']

/** Every file name under the searched folders, and at the root. */
function fileNames(): Set<string> {
  const names = new Set(readdirSync(ROOT))
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else names.add(entry.name)
    }
  }
  for (const dir of SEARCHED) walk(dir)
  return names
}

/** The paths and file names `markdown` names in backticks that do not exist in the repository. */
function missingPaths(markdown: string, names: Set<string> = fileNames()): string[] {
  const missing = new Set<string>()
  for (const [, token] of markdown.matchAll(/`([^`\s]+)`/g)) {
    if (TOP.test(token!)) {
      // A placeholder (`src/backends/<name>/`) stands for any folder: what comes before it must exist.
      const path = token!.split('<')[0]!
      if (!existsSync(join(ROOT, path))) missing.add(token!)
    } else if (FILE.test(token!) && !names.has(basename(token!))) missing.add(token!)
  }
  return [...missing]
}

/** The description of the folder table's row for `folder`. */
function rowOf(markdown: string, folder: string): string {
  const row = markdown.split('\n').find((line) => line.startsWith(`| \`${folder}\``))
  if (!row) throw new Error(`${PAGE} has no row for ${folder}`)
  return row.split('|')[2]!
}

describe(PAGE, () => {
  const page = readFileSync(join(ROOT, PAGE), 'utf8')

  it('names only paths and files that exist', () => {
    expect(missingPaths(page)).toEqual([])
  })

  it('a path or a file that does not exist fails the check', () => {
    const names = fileNames()
    expect(missingPaths('`src/core/pipeline/admission.ts`, `src/gone/<name>/`, `no-such-file.ts`', names)).toEqual([
      'src/core/pipeline/admission.ts',
      'src/gone/<name>/',
      'no-such-file.ts',
    ])
    expect(missingPaths('`src/core/durability/admission/`, `src/backends/<name>/`, `dispatcher.ts`, `botmesh/core/spi`', names)).toEqual([])
  })

  it("places admission, the message's run and the durable sender in the engine's rooms, not in src/core/pipeline/", () => {
    const pipeline = rowOf(page, 'src/core/pipeline/')
    const rooms: [RegExp, string][] = [
      [/admission/i, 'src/core/durability/admission/'],
      [/\brun of one message|message's (?:durable )?run/i, 'src/core/durability/run/'],
      [/senders?\b/i, 'src/core/durability/outbox/durable-sender.ts'],
    ]
    for (const [concept, room] of rooms) {
      // The row may say where the concept went, never leave it in the folder it describes.
      if (concept.test(pipeline)) expect(pipeline, `${concept} in the pipeline row`).toContain(`\`${room}\``)
      expect(existsSync(join(ROOT, room)), room).toBe(true)
    }
    // What the row does place there is there.
    for (const [, file] of pipeline.matchAll(/`([\w-]+\.ts)`/g)) expect(existsSync(join(ROOT, 'src/core/pipeline', file!)), file).toBe(true)
  })
})
