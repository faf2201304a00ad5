/**
 * crash-matrix tells the ambiguous window the policy allows apart from failures: per case, in the
 * table, in the summary line and in --help; exit 1 only on failures.
 */
import { describe, expect, it } from 'vitest'
import type { Miss } from '../../src/testing/crash-matrix/checker.js'
import { ambiguousWindow } from '../../src/operator/crash-window.js'
import type { CrashCaseReport, CrashMatrixReport } from '../../src/operator/crash-matrix.js'
import { crashMatrixView } from '../../src/cli/views/checks.js'
import { botmesh, jsonOf } from './helpers.js'

const miss = (lost: number, duplicated: number, ambiguous: number): Miss => ({ send: 'c: text', key: 'k', lost, duplicated, ambiguous })

describe('ambiguousWindow', () => {
  it("under 'skip' a loss of an ambiguous send is allowed; a duplicate, or a loss never ambiguous, is a failure", () => {
    expect(ambiguousWindow({ policy: 'skip', unexpected: 0, misses: [miss(1, 0, 1), miss(1, 0, 0), miss(0, 1, 1)] })).toEqual({
      allowed: { lost: 1, duplicated: 0 },
      beyond: { lost: 1, duplicated: 1, unexpected: 0 },
    })
  })

  it("under 'resend' a duplicate is allowed once per time its key was ambiguous; any loss is a failure; unexpected sends always are", () => {
    expect(ambiguousWindow({ policy: 'resend', unexpected: 2, misses: [miss(0, 3, 2), miss(1, 0, 1)] })).toEqual({
      allowed: { lost: 0, duplicated: 2 },
      beyond: { lost: 1, duplicated: 1, unexpected: 2 },
    })
  })
})

describe('the crash matrix view', () => {
  const result = (name: string, ok: boolean, window: CrashCaseReport['window']) =>
    ({
      name,
      ok,
      seed: 7,
      problems: ok ? [] : ['x lost under resend'],
      delivered: 19,
      expected: 20,
      crashed: true,
      ambiguous: 1,
      window,
      replay: `botmesh crash-matrix --backend memory --policy skip --seed 7 --case '${name}'`,
    }) as unknown as CrashCaseReport
  const report = (results: CrashCaseReport[], failed: number) =>
    ({
      backend: 'memory',
      seed: 1,
      cases: results.length,
      passed: results.length - failed,
      failed,
      crashedAsAimed: results.length,
      totals: { lost: 2, duplicated: 0, unexpected: 0, ambiguous: 2 },
      window: { allowed: { lost: 1, duplicated: 0 }, beyond: { lost: failed, duplicated: 0, unexpected: 0 } },
      reproducibility: { simulatedTime: true, notReproducible: [] },
      results,
    }) as unknown as CrashMatrixReport
  const text = (blocks: ReturnType<typeof crashMatrixView>) => blocks.map((block) => ('text' in block ? block.text : '')).join('\n')

  it("marks each case's losses as allowed or as a failure, and the summary says both", () => {
    const allowed = result('before outbox.markSent (skip)', true, {
      allowed: { lost: 1, duplicated: 0 },
      beyond: { lost: 0, duplicated: 0, unexpected: 0 },
    })
    const failing = result('before outbox.markSent (resend)', false, {
      allowed: { lost: 0, duplicated: 0 },
      beyond: { lost: 1, duplicated: 0, unexpected: 0 },
    })
    const blocks = crashMatrixView(report([allowed, failing], 1))
    const rows = blocks[0]!
    if (!('table' in rows)) throw new Error('the first block is the table')
    const cells = (row: CrashCaseReport) =>
      Object.fromEntries(rows.table.columns.map((column) => [column.header, column.value(row as never)]))
    expect(cells(allowed)).toMatchObject({ 'allowed (ambiguous)': '1 lost', failure: '-' })
    expect(cells(failing)).toMatchObject({ 'allowed (ambiguous)': '-', failure: '1 lost' })
    expect(text(blocks)).toContain('allowed by the ambiguous window (2 ambiguous key(s)): 1 lost; failures beyond it: 1 lost')
    expect(text(blocks)).toContain(`replay: ${failing.replay}`)
    expect(text(blocks)).not.toContain(`replay: ${allowed.replay}`)
  })
})

describe('botmesh crash-matrix', () => {
  it('losses the skip policy allows are reported as allowed, not failures, and the run exits 0', async () => {
    // A crash after a send was claimed and before the provider was called leaves it ambiguous:
    // under skip it is not sent again (the window the policy allows). On memory a seed replays alike.
    const result = await botmesh([
      'crash-matrix',
      '--backend',
      'memory',
      '--seed',
      '1',
      '--random',
      '0',
      '--match',
      'after outbox.claim (skip)',
      '--json',
    ])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<CrashMatrixReport>(result)
    expect(report.totals.lost).toBeGreaterThan(0)
    expect(report.window).toEqual({
      allowed: { lost: report.totals.lost, duplicated: 0 },
      beyond: { lost: 0, duplicated: 0, unexpected: 0 },
    })
    expect(report.results[0]!.window.allowed.lost).toBe(report.results[0]!.lost)
  })

  it('--help explains the ambiguous window and that only failures exit 1', async () => {
    const help = await botmesh(['crash-matrix', '--help'])
    expect(help.stdout).toContain('The ambiguous window')
    expect(help.stdout).toContain('Exit 1 only on failures.')
    expect(help.stdout).not.toContain('exit 1 on any lost or duplicated send')
  })
})
