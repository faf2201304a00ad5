/**
 * `botmesh crash-matrix --engine steps`: the cases' bots run on the steps engine, its steps are
 * crash points, a case's replay command names the engine, and a backend that does not speak the
 * steps fails the case instead of passing it on the message engine.
 */
import { describe, expect, it } from 'vitest'
import { botmesh, jsonOf } from './helpers.js'

interface Report {
  engine: string
  cases: number
  failed: number
  results: { name: string; ok: boolean; crashed: boolean; reached: string[]; problems: string[]; replay: string }[]
}

describe.concurrent('crash-matrix --engine steps', () => {
  it('--backend memory: crashes before and after the settle step on the steps engine, and each case replays on it', async () => {
    const args = ['crash-matrix', '--backend', 'memory', '--engine', 'steps', '--policy', 'skip', '--seed', '3', '--random', '0']
    const result = await botmesh([...args, '--match', 'steps.settle', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<Report>(result)
    expect(report.engine).toBe('steps')
    expect(report.results.map((r) => [r.name, r.ok, r.crashed])).toEqual([
      ['before steps.settle (skip)', true, true],
      ['after steps.settle (skip)', true, true],
    ])
    for (const r of report.results) {
      expect(r.reached).toContain('steps.settle')
      expect(r.reached).not.toContain('inbox.admit')
    }
    expect(report.results[0]!.replay).toBe(
      "botmesh crash-matrix --backend memory --engine steps --policy skip --seed 3 --case 'before steps.settle (skip)'",
    )
    const again = await botmesh([...args, '--case', 'before steps.settle (skip)', '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(jsonOf<Report>(again).results.map((r) => [r.name, r.ok])).toEqual([['before steps.settle (skip)', true]])
  }, 60_000)

  it('--backend sqlite (no steps): the case fails, saying its bots ran on the message engine', async () => {
    const result = await botmesh([
      'crash-matrix',
      '--backend',
      'sqlite',
      '--engine',
      'steps',
      '--policy',
      'skip',
      '--random',
      '0',
      '--case',
      'before steps.admit (skip)',
      '--json',
    ])
    expect(result.code, result.stderr).toBe(1)
    const [only] = jsonOf<Report>(result).results
    expect(only!.ok).toBe(false)
    expect(only!.problems.join(' ')).toMatch(/reached no step: they ran on the message engine/)
  }, 60_000)
})
