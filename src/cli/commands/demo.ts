/** `botmesh demo`: the first thing a newcomer runs. */
import { createWriteStream } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import { capabilitiesOf, journalPathOf } from '../services/capabilities.js'
import { UsageError } from '../errors.js'
import type { Cli } from '../context.js'
import { examples } from '../options.js'
import {
  DEMO_SCOPE,
  chooseDemoFile,
  earlierDemoRecords,
  keptNote,
  runDemo,
  startLiveTraffic,
  type DemoSummary,
  type LiveTraffic,
} from '../../demo/run-demo.js'

export function registerDemo(program: Command, cli: Cli): void {
  program
    .command('demo')
    .description(
      "run a demo bot with a simulated channel on the embedded default (SQLite at ./data/bot.db): chats, a flow, media, retries, dead letters, and a crash and restart of the bot process; on a terminal the dashboard shows it live. An earlier demo's journal is never deleted unasked: on a terminal the demo asks whether to start over on it, else it journals to a fresh file beside it (./data/bot-2.db, ...) and says which",
    )
    .option('--crash-after <ms>', 'kill the first bot process this many ms after it started', '2500')
    .option('--no-dashboard', 'print the story instead of opening the dashboard')
    .addHelpText(
      'after',
      examples(
        'botmesh demo',
        'botmesh demo --no-dashboard',
        'botmesh demo --backend sqlite:./tmp/demo.db',
        'botmesh dlq list   # afterwards: what the demo left in the dead-letter queues',
      ),
    )
    .action(async (options: { crashAfter: string; dashboard: boolean }) => {
      const config = cli.config()
      const target = config.target
      const file = capabilitiesOf(target).demo ? journalPathOf(target) : undefined
      if (file === undefined) throw new UsageError(`the demo runs on a SQLite file (sqlite:<file>); got ${target.kind}`)
      const crashAfterMs = Number(options.crashAfter)
      if (!Number.isFinite(crashAfterMs) || crashAfterMs < 0)
        throw new UsageError(`--crash-after takes a number of ms; got ${options.crashAfter}`)
      const live = options.dashboard && !config.json && process.stdin.isTTY && process.stdout.isTTY
      const { file: chosen, startOver, note } = await demoFile(cli, file, !live)
      const summary = live
        ? await demoWithDashboard(cli, chosen, crashAfterMs, startOver, note)
        : await runDemo({
            file: chosen,
            startOver,
            crashAfterMs,
            print: (line) => cli.out.info(line),
            command: (line) => cli.out.command(line),
          })
      if (config.json) cli.out.result(summary, () => [])
    })
}

/**
 * The file this demo journals to. An earlier demo's journal may hold what an operator re-queued:
 * on a terminal the demo asks before deleting it; otherwise (or on no) it takes a fresh file and says which.
 */
async function demoFile(cli: Cli, asked: string, sayNote: boolean): Promise<{ file: string; startOver: boolean; note?: string }> {
  const records = await earlierDemoRecords(asked)
  const startOver =
    records > 0 &&
    cli.out.canPrompt &&
    !cli.out.json &&
    (await cli.out.confirm(
      `${asked} holds an earlier demo's journal (${records} records). Delete them and start over on it (no: a fresh file beside it)?`,
    ))
  const choice = await chooseDemoFile(asked, startOver)
  const note = keptNote(choice)
  // Before the dashboard it would be covered: the dashboard's run says it once, after quitting.
  if (note && sayNote) cli.out.info(note, 'yellow')
  return { file: choice.file, startOver, note }
}

/** Runs the demo with its story in a log file while the dashboard shows the journal live; sums up after quitting. */
async function demoWithDashboard(
  cli: Cli,
  file: string,
  crashAfterMs: number,
  startOver: boolean,
  note: string | undefined,
): Promise<DemoSummary> {
  const logFile = join(dirname(resolve(file)), 'demo.log')
  const log = createWriteStream(logFile, { flags: 'w', mode: 0o600 })
  // The story's lines, and which are commands to copy (printed whole after quitting).
  const story: { line: string; command?: boolean }[] = []
  const demo = runDemo({
    file,
    startOver,
    crashAfterMs,
    print: (line) => (log.write(`${line}\n`), story.push({ line })),
    command: (line) => (log.write(`  ${line}\n`), story.push({ line, command: true })),
  })
  demo.catch(() => undefined)
  // Once the story is told, traffic keeps flowing until the operator quits, so the dashboard stays alive.
  let quit = false
  let live: LiveTraffic | undefined
  void demo.then(
    () => {
      if (!quit) live = startLiveTraffic(file, (line) => log.write(`${line}\n`))
    },
    () => undefined,
  )
  const { runDashboard } = await import('../../tui/index.js')
  await runDashboard({ backendUrl: `sqlite:${file}`, scope: DEMO_SCOPE, refreshMs: 500, env: cli.env, signal: cli.signal })
  quit = true
  cli.out.info(`the demo's story is in ${logFile}`)
  // Said once, here: before the dashboard opened it would have been covered.
  if (note) cli.out.info(note, 'yellow')
  const summary = await demo
  await live?.stop().catch(() => undefined)
  log.end()
  for (const { line, command } of story.slice(story.findIndex(({ line }) => line === '') + 1))
    if (command) cli.out.command(line)
    else cli.out.info(line)
  return summary
}
