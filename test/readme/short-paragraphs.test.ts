/**
 * Every page keeps its paragraphs short (issue 44): no paragraph of 10 lines or more in README.md
 * or any page under docs/. A paragraph is a run of consecutive non-blank prose lines; code blocks,
 * tables, lists (an item and its indented lines), headings, quotes and HTML are not prose. A
 * failure lists every offender as page:line and its length.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const PARAGRAPH_LINES_MAX = 9

/** README.md and every Markdown page under docs/. */
function pages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return walk(path)
      return entry.name.endsWith('.md') ? [path] : []
    })
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'))]
}

/** A line that is not prose, and ends the paragraph before it. */
const NOT_PROSE = /^\s*([-*+]\s|\d+[.)]\s|\||#|>|<)/

/** Each paragraph of `text` as its first line (1-based) and its length in lines. */
function paragraphs(text: string): { line: number; lines: number }[] {
  const found: { line: number; lines: number }[] = []
  let fenced = false
  let start = -1
  const close = (index: number) => {
    if (start >= 0) found.push({ line: start + 1, lines: index - start })
    start = -1
  }
  for (const [index, line] of text.split('\n').entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    // An indented line right after a break continues a list item (or is indented code): not a paragraph.
    const prose =
      !fenced && line.trim() !== '' && !NOT_PROSE.test(line) && !/^```|^~~~/.test(line.trim()) && (start >= 0 || !/^\s/.test(line))
    if (prose && start < 0) start = index
    if (!prose) close(index)
  }
  close(text.split('\n').length)
  return found
}

describe('paragraphs', () => {
  it('the rule finds a long paragraph and leaves code, tables and lists alone', () => {
    const long = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n')
    const list = ['- an item', ...Array.from({ length: 12 }, () => '  its text')].join('\n')
    const code = ['```sh', ...Array.from({ length: 12 }, () => 'echo'), '```'].join('\n')
    const table = Array.from({ length: 12 }, () => '| a | b |').join('\n')
    expect(paragraphs(`# Title\n\n${long}\n\n${list}\n\n${code}\n\n${table}\n`)).toEqual([{ line: 3, lines: 10 }])
    expect(paragraphs('one\ntwo\n- three\n  four\nfive\n')).toEqual([
      { line: 1, lines: 2 },
      { line: 5, lines: 1 },
    ])
  })

  it(`of the README and docs/ are under ${PARAGRAPH_LINES_MAX + 1} lines`, () => {
    const offenders = pages().flatMap((page) =>
      paragraphs(readFileSync(page, 'utf8'))
        .filter((paragraph) => paragraph.lines > PARAGRAPH_LINES_MAX)
        .map((paragraph) => `${relative(ROOT, page)}:${paragraph.line} (${paragraph.lines} lines)`),
    )
    expect(offenders).toEqual([])
  })
})
