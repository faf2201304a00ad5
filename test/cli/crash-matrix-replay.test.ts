/**
 * `botmesh crash-matrix`: each case's report carries the one command that runs it again alone (a
 * failed case prints it), and the report says whether the seed reproduces the run: byte for byte on
 * simulated time (memory, file, SQLite), and on a server which parts are left to real time.
 */
import { describe, expect, it } from 'vitest'
import { redisAvailable } from '../../test-utils/redis.js'
import { botmesh, jsonOf } from './helpers.js'

interface Report {
  cases: number
  failed: number
  reproducibility: { simulatedTime: boolean; notReproducible: string[] }
  results: { name: string; ok: boolean; replay: string }[]
}

/** The words of a command line as a POSIX shell splits it (plain words and single-quoted ones). */
function shellWords(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!)
}

/** Runs a printed replay command (it starts with `botmesh crash-matrix`) as JSON. */
async function replay(command: string): Promise<Report> {
  const [program, ...args] = shellWords(command)
  expect(program).toBe('botmesh')
  const result = await botmesh([...args, '--json'])
  expect(result.code, result.stderr).toBe(0)
  return jsonOf<Report>(result)
}

describe('crash-matrix: a failed case prints the command that replays it alone', () => {
  it('a case of the matrix: by the run seed and its exact name', async () => {
    // Over a 1 ms limit every case fails, and prints its replay.
    const args = [
      'crash-matrix',
      '--backend',
      'memory',
      '--policy',
      'skip',
      '--seed',
      '42',
      '--random',
      '0',
      '--match',
      'outbox.markSent',
      '--case-timeout',
      '1',
    ]
    const failed = jsonOf<Report>(await botmesh([...args, '--json']))
    expect(failed.results.map((r) => [r.name, r.ok])).toEqual([
      ['before outbox.markSent (skip)', false],
      ['after outbox.markSent (skip)', false],
    ])
    const [first, second] = failed.results
    expect(first!.replay).toBe("botmesh crash-matrix --backend memory --policy skip --seed 42 --case 'before outbox.markSent (skip)'")
    // --case takes the exact name: 'before outbox.markSent (skip)' does not also run what merely contains it.
    for (const result of [first!, second!]) {
      const again = await replay(result.replay)
      expect(again.results.map((r) => [r.name, r.ok])).toEqual([[result.name, true]])
    }
    const human = await botmesh(args)
    expect(human.code).toBe(1)
    expect(human.stdout).toContain(`replay: ${first!.replay}`)
  }, 120_000)

  it('a random case: by its own seed, drawn among the same policies', async () => {
    const failed = jsonOf<Report>(
      await botmesh([
        'crash-matrix',
        '--backend',
        'memory',
        '--seed',
        '5',
        '--random',
        '1',
        '--match',
        'random',
        '--case-timeout',
        '1',
        '--json',
      ]),
    )
    expect(failed.results).toHaveLength(1)
    const [result] = failed.results
    expect(result!.replay).toMatch(/^botmesh crash-matrix --backend memory --policy both --case-seed \d+$/)
    const again = await replay(result!.replay)
    expect(again.results.map((r) => [r.name, r.ok])).toEqual([[result!.name, true]])
  }, 120_000)

  it('a name no case has is bad usage', async () => {
    const result = await botmesh(['crash-matrix', '--backend', 'memory', '--case', 'before outbox.markSent'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no crash case matches "before outbox.markSent"')
  })
})

const redis = await redisAvailable('the crash matrix on the machine Redis')

describe('crash-matrix: what the seed reproduces', () => {
  it('on memory, file and SQLite: simulated time, nothing left to real time', async () => {
    const report = jsonOf<Report>(
      await botmesh([
        'crash-matrix',
        '--backend',
        'sqlite',
        '--policy',
        'skip',
        '--seed',
        '42',
        '--case',
        'after outbox.heartbeat (skip)',
        '--json',
      ]),
    )
    expect(report.reproducibility).toEqual({ simulatedTime: true, notReproducible: [] })
  }, 120_000)

  it.runIf(redis)(
    'on Redis: the report says which parts real time decides, in --json and in the human report',
    async () => {
      const args = ['crash-matrix', '--backend', 'redis', '--policy', 'skip', '--seed', '42', '--case', 'before inbox.admit (skip)']
      const report = jsonOf<Report>(await botmesh([...args, '--json']))
      expect(report.reproducibility.simulatedTime).toBe(false)
      expect(report.reproducibility.notReproducible.join(' ')).toContain("the server's clock")
      const human = await botmesh(args)
      expect(human.stdout).toContain(
        "not reproducible by --seed 42 alone: lease expiry, heartbeats, retry backoff and retention are judged on the server's clock",
      )
    },
    120_000,
  )
})
