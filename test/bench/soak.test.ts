/**
 * `npm run soak` (bench/soak/main.ts): a short soak on memory and on SQLite. Its output's shape (a JSON
 * line per interval, then the summary; the table's lines), and that retention purged while it ran:
 * the journal holds fewer records than the messages wrote. Nothing here asserts a time or a speed;
 * the counts hold however late the machine runs the timers (every message is sent, every interval
 * sampled, each in its turn).
 */
import { describe, expect, it } from 'vitest'
import type { SoakSample, SoakSummary } from '../../bench/soak/soak.js'
import { pathToFileURL } from 'node:url'
import { nodeScript, ROOT, type CliOptions, type CliRun } from '../cli/helpers.js'

/** Runs `npm run soak -- ...args` as npm does: the script through the repository's TypeScript loader. */
function soak(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const loader = pathToFileURL(`${ROOT}/test-utils/ts-loader.mjs`).href
  return nodeScript('bench/soak/main.ts', args, { ...options, env: { ...options.env, NODE_OPTIONS: `--import=${loader}` } })
}

/** Six seconds at 40 msg/s with a one-second retention: purging runs several times before the end. */
const SOAK = ['--duration', '6s', '--rate', '40', '--interval', '1500ms', '--retention', '1s', '--chats', '4']

function linesOf(stdout: string): (SoakSample | SoakSummary)[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SoakSample | SoakSummary)
}

describe('npm run soak', () => {
  it.each(['memory', 'sqlite'])(
    '--backend %s --json: a line per interval, then the summary; retention kept the journal bounded',
    async (backend) => {
      const result = await soak(['--backend', backend, ...SOAK, '--json'], { timeoutMs: 90_000 })
      expect(result.code, result.stderr).toBe(0)
      const lines = linesOf(result.stdout)
      const samples = lines.filter((line): line is SoakSample => line.type === 'interval')
      const summary = lines.at(-1) as SoakSummary
      // Samples at 1.5, 3, 4.5 and 6 s: as many as the duration holds intervals, whatever the load.
      expect(samples).toHaveLength(4)
      expect(lines).toHaveLength(5)
      for (const sample of samples) {
        expect(Object.keys(sample).sort()).toEqual(
          [
            'type',
            'atSeconds',
            'messagesPerSecond',
            'p50Ms',
            'p99Ms',
            'journalRecords',
            'inboxRecords',
            'outboxRecords',
            'purgeBacklog',
            'purgeBacklogCapped',
            'recordsPurged',
            'rssBytes',
            'inFlight',
          ].sort(),
        )
        expect(sample.journalRecords).toBe(sample.inboxRecords + sample.outboxRecords)
        expect(sample.rssBytes).toBeGreaterThan(0)
        expect(sample.purgeBacklog).toBeGreaterThanOrEqual(0)
      }
      expect(samples.map((s) => s.atSeconds)).toEqual([...samples.map((s) => s.atSeconds)].sort((a, b) => a - b))
      expect(summary).toMatchObject({
        type: 'summary',
        backend,
        rate: 40,
        chats: 4,
        durationMs: 6_000,
        retentionMs: 1_000,
        intervalMs: 1_500,
        messagesSent: 240,
        messagesAnswered: 240,
        messagesFailed: 0,
        firstError: null,
        messagesUnanswered: 0,
        messagesOutOfOrder: 0,
        stoppedEarly: false,
      })
      // Every message wrote an inbox and an outbox record; retention deleted some while the run went on.
      expect(summary.recordsPurged).toBeGreaterThan(0)
      expect(samples.reduce((sum, s) => sum + s.recordsPurged, 0)).toBeLessThanOrEqual(summary.recordsPurged)
      expect(samples.at(-1)!.journalRecords).toBeLessThan(2 * summary.messagesAnswered)
      const { flatness } = summary
      expect(flatness.samples).toBeGreaterThanOrEqual(2)
      expect(flatness.spreadMaxPercent).toBe(20)
      expect(flatness.journalRecords).toMatchObject({ min: expect.any(Number), max: expect.any(Number), spreadPercent: expect.any(Number) })
      expect(flatness.rssBytes!.min).toBeGreaterThan(0)
      expect(typeof flatness.flat).toBe('boolean')
      // The heading is for people: on stderr under --json.
      expect(result.stderr).toMatch(new RegExp(`^soak on ${backend}: 40 msg/s for 6s over 4 chats, retention 1s`, 'm'))
    },
  )

  it('prints a line per interval under fixed columns, then the totals and the verdict', async () => {
    const result = await soak(['--backend', 'memory', ...SOAK], { timeoutMs: 90_000 })
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.split('\n')
    const header = lines.findIndex((line) =>
      /^\s+at s\s+msg\/s\s+p50 ms\s+p99 ms\s+records\s+backlog\s+purged\s+RSS MB\s+in flight$/.test(line),
    )
    expect(header).toBeGreaterThan(0)
    for (const line of lines.slice(header + 1, header + 5))
      expect(line).toMatch(/^\s+[\d.]+(\s+[\d.]+){3}\s+\d+\s+≥?\d+\s+\d+\s+[\d.]+\s+\d+$/)
    expect(result.stdout).toMatch(/^answered\s+240 \(/m)
    expect(result.stdout).toMatch(/^records, last half\s+\d+ – \d+ \(mean \d+\), spread [\d.]+%$/m)
    expect(result.stdout).toMatch(/^RSS, last half\s+[\d.]+ MB – [\d.]+ MB/m)
    expect(result.stdout).toMatch(
      /^(flat|NOT flat): over the last half \(from [\d.]+ s, \d+ samples\) journal records spread [\d.]+%, RSS [\d.]+% \(at most 20% each\)$/m,
    )
  })

  it('refuses a soak without --rate, and a flag it does not know (exit 2)', async () => {
    const noRate = await soak(['--backend', 'memory', '--duration', '5s'])
    expect(noRate.code).toBe(2)
    expect(noRate.stderr).toMatch(/--rate is needed/)
    const unknown = await soak(['--backend', 'memory', '--duration', '5s', '--rate', '5', '--messages', '10'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/--messages/)
  })
})
