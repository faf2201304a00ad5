/** `botmesh demo`: the first thing a newcomer runs. */
import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import { capabilitiesOf, journalPathOf } from '../../operator/capabilities.js'
import { UsageError } from '../../operator/errors.js'
import type { Cli } from '../context.js'
import { examples } from '../options.js'
import {
  DEMO_LIMITS,
  DEMO_SCOPE,
  chooseDemoFile,
  earlierDemoRecords,
  keptNote,
  runDemo,
  type DemoOptions,
  type DemoSummary,
} from '../../demo/run-demo.js'
import { demoOnDashboard } from '../../demo/on-dashboard.js'

export function registerDemo(program: Command, cli: Cli): void {
  program
    .command('demo')
    .description(
      "run a demo bot with a simulated channel on the embedded default (SQLite at ./data/bot.db): chats, a flow, media, retries, dead letters, and a crash and restart of the bot process whose replay is answered from the outbox; on a terminal the dashboard shows it live, each step announced on its message line. An earlier demo's journal is never deleted unasked: on a terminal the demo asks whether to start over on it, else it journals to a fresh file beside it (./data/bot-2.db, ...) and says which",
    )
    .option(
      '--crash-after <ms>',
      'kill the first bot process this many ms after its story reached the crash (a reply sent, its handler not done)',
      String(DEMO_LIMITS.crashAfterMs),
    )
    .option(
      '--step <ms>',
      `how long each step of the story stays on the dashboard before the next begins (default ${DEMO_LIMITS.stepMs}; 0 with --no-dashboard)`,
    )
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
    .action(async (options: { crashAfter: string; step?: string; dashboard: boolean }) => {
      const config = cli.config()
      const target = config.target
      const file = capabilitiesOf(target).demo ? journalPathOf(target) : undefined
      if (file === undefined) throw new UsageError(`the demo runs on a SQLite file (sqlite:<file>); got ${target.kind}`)
      const crashAfterMs = msOf('--crash-after', options.crashAfter)
      const live = options.dashboard && !config.json && process.stdin.isTTY && process.stdout.isTTY
      // The steps are paced for the dashboard; printed, the story is read at the reader's pace.
      const stepMs = options.step === undefined ? (live ? DEMO_LIMITS.stepMs : 0) : msOf('--step', options.step)
      const { file: chosen, startOver, note } = await demoFile(cli, file, !live)
      const summary = live
        ? await demoWithDashboard(cli, { file: chosen, crashAfterMs, startOver, pace: { stepMs } }, note)
        : await runDemo({
            file: chosen,
            startOver,
            crashAfterMs,
            pace: { stepMs },
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

/** Runs the demo with its story on the dashboard's message line and in a log file; sums up after quitting. */
async function demoWithDashboard(cli: Cli, demo: DemoOptionsGiven, note: string | undefined): Promise<DemoSummary> {
  const file = demo.file
  const logFile = join(dirname(resolve(file)), 'demo.log')
  const { runDashboard, StoryTeller } = await import('../../tui/index.js')
  const story = new StoryTeller()
  return demoOnDashboard({
    ...demo,
    logFile,
    announce: (step) => story.tell(step.text),
    show: () => runDashboard({ backendUrl: `sqlite:${file}`, scope: DEMO_SCOPE, refreshMs: 500, env: cli.env, signal: cli.signal, story }),
    closed: () => {
      cli.out.info(`the demo's story is in ${logFile}`)
      // Said once, here: before the dashboard opened it would have been covered.
      if (note) cli.out.info(note, 'yellow')
    },
    print: (line) => cli.out.info(line),
    command: (line) => cli.out.command(line),
  })
}

/** What the command resolved of the demo's options. */
type DemoOptionsGiven = Required<Pick<DemoOptions, 'file' | 'startOver' | 'crashAfterMs' | 'pace'>>

function msOf(option: string, value: string): number {
  const ms = Number(value)
  if (!Number.isFinite(ms) || ms < 0) throw new UsageError(`${option} takes a number of ms; got ${value}`)
  return ms
}
