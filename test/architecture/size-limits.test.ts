/**
 * Size limits of docs/architecture.md ("Size"): no source file over 300 lines, no function over 70.
 * Functions are found with the TypeScript compiler's parser, so a method, an arrow function or a
 * function expression counts as much as a declaration. A failure lists every offender as
 * file:line and its length.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const FILE_LINES_MAX = 300
const FUNCTION_LINES_MAX = 70

/** Files that may stay over the file limit for now (relative to the repository); an entry is removed once its file fits. */
const LONG_FILES_ALLOWED: ReadonlySet<string> = new Set<string>([])

interface Offender {
  at: string
  lines: number
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

/** Every function-like node with a body, longer than the limit, as file:line. */
function longFunctions(file: string, text: string): Offender[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const found: Offender[] = []
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = lineOf(node.getStart(source))
      const lines = lineOf(node.getEnd()) - first + 1
      if (lines > FUNCTION_LINES_MAX) found.push({ at: `${file}:${first + 1}`, lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function scan(): { files: Offender[]; allowed: Offender[]; functions: Offender[] } {
  const files: Offender[] = []
  const allowed: Offender[] = []
  const functions: Offender[] = []
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const file = relative(ROOT, path).split('\\').join('/')
    const text = readFileSync(path, 'utf8')
    const lines = lineCount(text)
    if (LONG_FILES_ALLOWED.has(file)) allowed.push({ at: file, lines })
    else if (lines > FILE_LINES_MAX) files.push({ at: file, lines })
    functions.push(...longFunctions(file, text))
  }
  return { files, allowed, functions }
}

const listed = (offenders: Offender[]) => offenders.map((offender) => `${offender.at} (${offender.lines} lines)`).join('\n')

describe('size limits', () => {
  const { files, allowed, functions } = scan()

  it(`no file under src/ is over ${FILE_LINES_MAX} lines`, () => {
    expect(listed(files), `files over ${FILE_LINES_MAX} lines`).toBe('')
  })

  it(`no function under src/ is over ${FUNCTION_LINES_MAX} lines`, () => {
    expect(listed(functions), `functions over ${FUNCTION_LINES_MAX} lines`).toBe('')
  })

  it('the allow-list names only files that exist and are still over the limit', () => {
    const stale = [...LONG_FILES_ALLOWED].filter((file) => !allowed.some((found) => found.at === file && found.lines > FILE_LINES_MAX))
    expect(stale, 'allow-list entries to remove').toEqual([])
  })
})
