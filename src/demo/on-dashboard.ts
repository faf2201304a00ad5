/**
 * `botmesh demo` on a terminal: the story is told on the dashboard (each step on its message line,
 * every line in a log file) while the restarted bot goes on with live traffic until the operator
 * quits; then the summary counts what the dashboard showed last, so the two never disagree.
 */
import { createWriteStream } from 'node:fs'
import { demoCounts, type DemoCounts } from './demo-files.js'
import { startDemo, tellSummary, type DemoOptions, type DemoSummary } from './run-demo.js'

export interface DemoOnDashboardOptions extends Omit<DemoOptions, 'print'> {
  /** The file the story's lines go to. */
  logFile: string
  /** Shows the dashboard until the operator quits; resolves with the counts it showed last (undefined: none read). */
  show(): Promise<{ counts: DemoCounts | undefined }>
  /** Once the dashboard closed, before the story's end is awaited (say where the story went). */
  closed?(): void
  /** Where the summary goes after the dashboard closed. */
  print(line: string): void
}

/** Runs the demo under the dashboard; resolves with the summary, counted as the dashboard counted. */
export async function demoOnDashboard(options: DemoOnDashboardOptions): Promise<DemoSummary> {
  const log = createWriteStream(options.logFile, { flags: 'w', mode: 0o600 })
  const write = (line: string) => void log.write(`${line}\n`)
  const run = startDemo({
    ...options,
    live: true,
    print: write,
    command: (line) => write(`  ${line}`),
  })
  run.story.catch(() => undefined)
  let summary: DemoSummary
  try {
    const shown = await options.show()
    options.closed?.()
    run.hurry()
    summary = await run.story
    await run.stop()
    // One source: what the dashboard showed last (the journal's counts when it read nothing).
    const counts = shown.counts ?? (await demoCounts(summary.file))
    summary = { ...summary, inbox: counts.inbox, outbox: counts.outbox }
  } finally {
    await run.stop().catch(() => undefined)
    log.end()
  }
  tellSummary(summary, options)
  return summary
}
