/**
 * `botmesh crash-matrix` always ends with a verdict: the random case that used to hang every run of
 * `--random 20 --seed 1` (a crash armed in the bot's graceful stop) finishes on each backend, a
 * Ctrl-C cuts the case off and still removes its throwaway keys, and one --seed gives one report.
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { CRASH_POINTS } from '../../src/core/durability/journal/crash-points.js'
import { deterministicCases } from '../../src/testing/crash-matrix/cases.js'
import { REDIS_URL, randomPrefix, redisAvailable, scanKeys } from '../../test-utils/redis.js'
import { waitFor } from '../../test-utils/wait.js'
import { BIN, ROOT, botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

interface CrashReport {
  seed: number
  cases: number
  failed: number
  interrupted: boolean
  results: {
    name: string
    ok: boolean
    seed: number
    crashed: boolean
    problems: string[]
    reached: string[]
    details: Record<string, string[]>
  }[]
}

/** The case `--random 20 --seed 1` draws whose crash lands in the bot's graceful stop. */
const STOP_CRASH_SEED = '1049664919'

describe.concurrent('crash-matrix ends with a verdict', () => {
  it.each(['memory', 'sqlite', 'file'])('--backend %s: the case whose crash lands in the graceful stop passes', async (backend) => {
    const result = await botmesh(['crash-matrix', '--backend', backend, '--case-seed', STOP_CRASH_SEED, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = jsonOf<CrashReport>(result)
    expect(report.results.map((r) => [r.name, r.ok, r.crashed])).toEqual([
      [`random seed ${STOP_CRASH_SEED}: before instances.beat #2 (resend) + a crash loop`, true, true],
    ])
  })
})

describe('crash-matrix: --case-timeout', () => {
  it('a case over the limit is a failed case with its seed (exit 1), and the run goes on to its verdict', async () => {
    // Every case sleeps 250 ms in a handler of the workload, so none fits in 1 ms.
    const dir = tempDir()
    const result = await botmesh([
      'crash-matrix',
      '--backend',
      `sqlite:${join(dir, 'bot.db')}`,
      '--case-seed',
      STOP_CRASH_SEED,
      '--case-timeout',
      '1',
      '--json',
    ])
    expect(result.code, result.stderr).toBe(1)
    const report = jsonOf<CrashReport>(result)
    expect(report).toMatchObject({ cases: 1, failed: 1 })
    expect(report.results[0]!.problems[0]).toMatch(
      new RegExp(`^the case \\(seed ${STOP_CRASH_SEED}\\) did not finish within 1 ms; it was at: `),
    )
    // The throwaway instance (made beside the file the URL names) is gone, even one cut off while it opened.
    expect(readdirSync(dir)).toEqual([])
  })

  it('a limit that is not a positive count is bad usage', async () => {
    const result = await botmesh(['crash-matrix', '--backend', 'memory', '--case-timeout', '0'])
    expect(result.code).toBe(2)
  })
})

describe('crash-matrix: one --seed, one report', () => {
  it('the same --seed runs the same cases in the same order, and lists every list in the report in a fixed order', async () => {
    const args = ['crash-matrix', '--backend', 'memory', '--seed', '11', '--random', '3', '--match', 'random', '--json']
    const [first, second] = [jsonOf<CrashReport>(await botmesh(args)), jsonOf<CrashReport>(await botmesh(args))]
    const cases = (report: CrashReport) => report.results.map((r) => [r.name, r.seed])
    expect(cases(second)).toEqual(cases(first))
    expect(first.results).toHaveLength(3)
    for (const result of [...first.results, ...second.results]) {
      expect(result.reached, result.name).toEqual(CRASH_POINTS.filter((point) => result.reached.includes(point)))
      for (const [list, items] of Object.entries(result.details)) expect(items, `${result.name}: ${list}`).toEqual([...items].sort())
    }
  })
})

const redis = await redisAvailable('the crash matrix CLI on the machine Redis')

describe.runIf(redis)('crash-matrix on Redis leaves no throwaway keys', () => {
  let admin: Redis | undefined
  const client = () => (admin ??= new Redis(REDIS_URL))
  const prefixes: string[] = []
  afterAll(async () => {
    // Only what a failed run left behind.
    for (const prefix of prefixes) for (const key of await throwaways(prefix)) await client().del(key)
    await admin?.quit()
  })
  const throwaways = (prefix: string) => scanKeys(client(), `${prefix}-throwaway-*`)

  it('the case whose crash lands in the graceful stop passes and removes its keys', async () => {
    const prefix = randomPrefix()
    prefixes.push(prefix)
    const result = await botmesh(['crash-matrix', '--backend', `${REDIS_URL}?prefix=${prefix}`, '--case-seed', STOP_CRASH_SEED, '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(jsonOf<CrashReport>(result)).toMatchObject({ cases: 1, failed: 0 })
    expect(await throwaways(prefix)).toEqual([])
  })

  it('Ctrl-C cuts the running case off, reports the run interrupted (exit 1) and removes its keys', async () => {
    const prefix = randomPrefix()
    prefixes.push(prefix)
    const child = spawn(
      process.execPath,
      [BIN, 'crash-matrix', '--backend', `${REDIS_URL}?prefix=${prefix}`, '--policy', 'resend', '--random', '0', '--seed', '3', '--json'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
    try {
      // A case is running once its keys exist.
      await waitFor(async () => (await throwaways(prefix)).length > 0, {
        timeoutMs: 60_000,
        intervalMs: 20,
        message: 'a case writing keys',
      })
      child.kill('SIGINT')
      const code = await exited
      expect(code, stderr).toBe(1)
      const report = jsonOf<CrashReport>({ code, stdout, stderr })
      expect(report.interrupted).toBe(true)
      const all = deterministicCases(['resend']).length
      expect(report.cases).toBeLessThan(all)
      expect(stderr).toMatch(new RegExp(`interrupted after \\d+ of ${all} crash case\\(s\\)`))
      expect(await throwaways(prefix)).toEqual([])
    } finally {
      child.kill('SIGKILL')
    }
  })
})
