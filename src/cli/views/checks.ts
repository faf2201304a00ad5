/** Human views of the suites and tools: conformance, crash matrix, bench, verify, compact, export, import. */
import type { CaseResult } from '../../testing/conformance/index.js'
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { BenchReport, RunFigures } from '../services/bench.js'
import type { CompactOutcome } from '../../operator/compact.js'
import type { ConformanceReport } from '../../operator/conformance.js'
import type { CrashCaseReport, CrashMatrixReport } from '../../operator/crash-matrix.js'
import { describeCounts } from '../../operator/crash-window.js'
import type { ExportSummary } from '../../operator/export.js'
import type { ImportSummary } from '../../operator/import.js'
import type { VerifyOutcome } from '../../operator/verify.js'

export function conformanceView(report: ConformanceReport): Block[] {
  return [
    table(
      [
        { header: 'case', value: (r: CaseResult) => r.name, maxWidth: 80, minWidth: 30, priority: 3 },
        { header: 'result', value: (r) => (r.ok ? 'pass' : 'FAIL'), tone: (r) => (r.ok ? 'green' : 'red'), priority: 4 },
        { header: 'ms', value: (r) => Math.round(r.ms), align: 'right', priority: 1 },
        { header: 'error', value: (r) => r.error ?? '', maxWidth: 60, priority: 0 },
      ],
      report.results,
    ),
    {
      text: `conformance on ${report.backend}: ${report.passed} passed, ${report.failed} failed, ${report.cases} cases in ${(report.ms / 1000).toFixed(1)}s (instances: ${report.instances})`,
      tone: report.failed ? 'red' : 'green',
    },
  ]
}

/**
 * The crash matrix's cases, each loss or duplicate marked as the ambiguous window the policy allows
 * ("allowed") or as a failure; the summary line says both, so "lost 39" never reads as a failure.
 */
export function crashMatrixView(report: CrashMatrixReport): Block[] {
  const failed = report.results.filter((r) => !r.ok)
  const { allowed, beyond } = report.window
  const blocks: Block[] = [
    table(
      [
        { header: 'case', value: (r: CrashCaseReport) => r.name, maxWidth: 60, minWidth: 24, priority: 3 },
        { header: 'result', value: (r) => (r.ok ? 'pass' : 'FAIL'), tone: (r) => (r.ok ? 'green' : 'red'), priority: 4 },
        { header: 'crashed', value: (r) => (r.crashed ? 'yes' : 'no'), priority: 0 },
        { header: 'delivered', value: (r) => `${r.delivered}/${r.expected}`, align: 'right', priority: 1 },
        {
          header: 'allowed (ambiguous)',
          value: (r) => dash(describeCounts({ lost: r.window.allowed.lost, duplicated: r.window.allowed.duplicated })),
          priority: 2,
        },
        {
          header: 'failure',
          value: (r) => dash(describeCounts(r.window.beyond)),
          tone: (r) => (describeCounts(r.window.beyond) === 'none' ? undefined : 'red'),
          priority: 3,
        },
        { header: 'ambiguous', value: (r) => r.ambiguous, align: 'right', priority: 0 },
      ],
      report.results,
    ),
    {
      text:
        `crash matrix on ${report.backend}${report.engine === 'steps' ? ' (steps engine)' : ''} (seed ${report.seed}): ${report.passed} passed, ${report.failed} failed of ${report.cases}; ${report.crashedAsAimed} crashed as aimed; ` +
        `allowed by the ambiguous window (${report.totals.ambiguous} ambiguous key(s)): ${describeCounts({ lost: allowed.lost, duplicated: allowed.duplicated })}; ` +
        `failures beyond it: ${describeCounts(beyond)}`,
      tone: report.failed ? 'red' : 'green',
    },
    reproducibilityLine(report),
  ]
  for (const result of failed)
    blocks.push({ text: `FAIL ${result.name}: ${result.problems.join('; ')}\n  replay: ${result.replay}`, tone: 'red' })
  return blocks
}

/** Whether the seed reproduces the run, and what it does not where it does not. */
function reproducibilityLine({ reproducibility, seed }: CrashMatrixReport): Block {
  if (reproducibility.simulatedTime)
    return { text: `reproducible: simulated time; --seed ${seed} gives this report again, byte for byte in --json` }
  return { text: `not reproducible by --seed ${seed} alone: ${reproducibility.notReproducible.join('; ')}`, tone: 'yellow' }
}

const dash = (text: string) => (text === 'none' ? '-' : text)

export function benchView(report: BenchReport): Block[] {
  const runs: [string, RunFigures][] = [
    ['with durability', report.durable],
    ...(report.sealed ? [['with durability, sealed', report.sealed.figures] as [string, RunFigures]] : []),
    ['without (baseline)', report.baseline],
  ]
  return [
    {
      text: `bench on ${report.backend}: ${report.messages} messages, concurrency ${report.concurrency} (instances: ${report.instances})`,
      tone: 'bold',
    },
    table(
      [
        { header: 'run', value: (r: [string, RunFigures]) => r[0] },
        { header: 'messages/s', value: (r) => r[1].messagesPerSecond, align: 'right' },
        { header: 'p50 ms', value: (r) => r[1].p50Ms, align: 'right' },
        { header: 'p99 ms', value: (r) => r[1].p99Ms, align: 'right' },
        { header: 'seconds', value: (r) => r[1].seconds, align: 'right' },
        { header: 'CPU µs/msg', value: (r) => r[1].cpuMicrosPerMessage, align: 'right' },
        { header: 'KB alloc/msg', value: (r) => round1(r[1].allocatedBytesPerMessage / 1024), align: 'right' },
        { header: 'GC µs/msg', value: (r) => r[1].gcMicrosPerMessage, align: 'right' },
        { header: 'promises/msg', value: (r) => r[1].promisesPerMessage, align: 'right' },
      ],
      runs,
    ),
    {
      fields: [
        ['time per message', `${report.slowdown}× the baseline`],
        [
          'CPU per message',
          `${report.cpuRatio}× the baseline (this process, user + system; promises counted over ${report.promisesCountedOver} more messages, untimed)`,
        ],
        [
          'round trips/message',
          `${report.roundTripsPerMessage} (${Object.entries(report.callsPerMessage)
            .filter(([, n]) => n > 0)
            .map(([verb, n]) => `${verb} ${n}`)
            .join(', ')}; background loops ${report.backgroundCallsPerMessage} more)`,
        ],
        ['writes/message', `${report.writesPerMessage} records written`],
        ['engine', `${report.engine} (BOTMESH_ENGINE chooses one for every backend)`],
        ...(report.sealed
          ? [
              [
                'sealing (--encrypt)',
                `time per message ${report.sealed.slowdown}×, CPU per message ${report.sealed.cpuRatio}× the unsealed durable run's`,
              ] as [string, string],
            ]
          : []),
      ],
    },
  ]
}

const round1 = (value: number) => Math.round(value * 10) / 10

export function verifyView(outcome: VerifyOutcome): Block[] {
  const notes = outcome.notes.map((note): Block => ({ text: note, tone: 'yellow' }))
  if (outcome.ok) return [{ text: `${outcome.backend}: no damage found${notes.length ? ' (see below)' : ''}`, tone: 'green' }, ...notes]
  return [
    { text: `${outcome.backend}: ${outcome.problems.length} problem(s):`, tone: 'red' },
    ...outcome.problems.map((problem) => ({ text: `  ${problem}` })),
    ...notes,
  ]
}

export function salvageView(report: unknown): Block[] {
  const r = report as { out: string; entries: number; fromSnapshot: number; fromLog: number; logLinesLost: number }
  return [
    {
      text: `salvaged ${r.entries} entries into ${r.out} (${r.fromSnapshot} from the snapshot, ${r.fromLog} log records replayed, ${r.logLinesLost} damaged log line(s) lost); the original files are untouched`,
    },
  ]
}

export function compactView(outcome: CompactOutcome): Block[] {
  const what =
    outcome.kind === 'file'
      ? `folded ${outcome.folded} log record(s) into the snapshot`
      : `checkpointed ${outcome.folded} WAL frame(s) into the database file`
  return [{ text: `${outcome.backend}: ${what}, ${outcome.bytesFreed} bytes freed`, tone: 'green' }]
}

export function exportSummaryLine(summary: ExportSummary & { out: string }): string {
  return `exported ${summary.records} record(s) (${summary.byKind.inbox} inbox, ${summary.byKind.outbox} outbox) of ${summary.scopes.length} scope(s) to ${summary.out}`
}

export function exportView(summary: ExportSummary & { out: string }): Block[] {
  return [{ text: exportSummaryLine(summary) }]
}

export function importView(summary: ImportSummary): Block[] {
  if (summary.dryRun)
    return [
      {
        text: `dry run: ${summary.records} record(s) would be imported into ${summary.scopes.length} scope(s), ${summary.existing} of them already exist`,
      },
    ]
  return [
    {
      text: `imported ${summary.records} record(s) (${summary.byKind.inbox} inbox, ${summary.byKind.outbox} outbox) into ${summary.scopes.join(', ')}: ${summary.inserted} inserted, ${summary.overwritten} overwritten${summary.conflicts ? `, ${summary.conflicts} changed meanwhile and were not overwritten` : ''}`,
      tone: summary.conflicts ? 'red' : 'green',
    },
  ]
}
