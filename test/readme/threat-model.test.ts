/**
 * The threat model of docs/security.md cannot drift from the tests: every line of its table names
 * at least one test file, and every test file the page names exists.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const PAGE = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8')

/** The test files a piece of Markdown names in code spans (`test/…​.test.ts`). */
function testFilesIn(markdown: string): string[] {
  return [...markdown.matchAll(/`(test\/[^`\s]+\.test\.tsx?)`/g)].map((match) => match[1]!)
}

/** The rows of the table under "## Threat model", without its header and separator. */
function threatRows(): string[] {
  const section = /^## Threat model\n([\s\S]*?)(?=^## )/m.exec(PAGE)
  expect(section, 'docs/security.md has a "## Threat model" section').not.toBeNull()
  return section![1]!.split('\n').filter((line) => line.startsWith('|') && !/^\| (Who|---)/.test(line))
}

describe('the threat model of docs/security.md', () => {
  it('names a test file on every line, for a sender, a network peer, a store with write access and an operator', () => {
    const rows = threatRows()
    for (const who of ['A sender', 'A network peer', 'A store with write access', 'An operator'])
      expect(
        rows.some((row) => row.startsWith(`| ${who}`)),
        who,
      ).toBe(true)
    expect(rows.filter((row) => testFilesIn(row).length === 0)).toEqual([])
  })

  it('names only test files that exist', () => {
    const named = testFilesIn(PAGE)
    expect(named.length).toBeGreaterThan(10)
    expect(named.filter((file) => !existsSync(join(ROOT, file)))).toEqual([])
  })
})
