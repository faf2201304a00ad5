/**
 * `botmesh demo`: runs the demo bot on the embedded default backend, paced step by step (each step
 * announced), kills it with SIGKILL once a handler sent its reply and before it completed, starts it
 * again with the same instanceId (the replay answers that reply from the outbox), and sums up.
 */
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { INBOX_STATES, OUTBOX_STATES } from '../core/durability/journal/records.js'
import { DEMO_LIMITS, paceOf, type DemoPace } from './limits.js'
import {
  DEMO_FILE_DEFAULT,
  DEMO_SCOPE,
  chooseDemoFile,
  clearDemoScope,
  demoJournalNow,
  keptNote,
  type DemoCounts,
  type DemoFileChoice,
} from './demo-files.js'
import { startWorker, type Worker } from './worker-process.js'

export {
  DEMO_FILE_DEFAULT,
  DEMO_SCOPE,
  chooseDemoFile,
  earlierDemoRecords,
  keptNote,
  type DemoCounts,
  type DemoFileChoice,
} from './demo-files.js'
export { DEMO_LIMITS, type DemoPace } from './limits.js'
export { startLiveTraffic, LIVE_PACE_MS, type LiveTraffic } from './live-traffic.js'

/** A step of the story as it is announced: its name and its line. */
export interface DemoStoryStep {
  name: 'messages' | 'flow' | 'failing send' | 'crash' | 'killed' | 'restart' | 'replay' | 'told'
  text: string
}

export interface DemoOptions {
  /** The SQLite file. @default './data/bot.db' */
  file?: string
  /**
   * Delete what an earlier demo left in the file's demo scope and start over on it. Without it an
   * earlier demo's journal is kept and this one journals to a fresh file beside it (see `chooseDemoFile`).
   * @default false
   */
  startOver?: boolean
  /** How long the first run goes on after its story reached the crash before it is killed, in ms. @default DEMO_LIMITS.crashAfterMs */
  crashAfterMs?: number
  /** The story's pauses (tests: all 0). @default DEMO_LIMITS' */
  pace?: Partial<DemoPace>
  /** Where the story goes, line by line. */
  print(line: string): void
  /** Where a command to copy goes (the "Try next" hints), whole; by default `print` indented by two spaces. */
  command?(command: string): void
  /** Each step of the story as it begins (the dashboard's message line). */
  announce?(step: DemoStoryStep): void
}

export interface DemoSummary {
  file: string
  scope: string
  /** The backend the hints name, as it was given (sqlite:./data/bot.db). */
  backend: string
  metrics: Record<string, number>
  inbox: Record<string, number>
  outbox: Record<string, number>
  deadInbox: string[]
  deadOutbox: string[]
}

/** A demo under way. */
export interface DemoRun {
  /** Resolves once the story is told (with `live`, traffic goes on until `stop()`). */
  story: Promise<DemoSummary>
  /** Drops every pause left: the story is told at once (the operator quit the dashboard). */
  hurry(): void
  /** Stops the live traffic after the story (nothing without `live`). */
  stop(): Promise<void>
}

/** Runs the demo and prints its summary; resolves once the story is told. */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const summary = await startDemo(options).story
  tellSummary(summary, options)
  return summary
}

/** Starts the demo; with `live`, the restarted bot goes on with live traffic after the story, until `stop()`. */
export function startDemo(options: DemoOptions & { live?: boolean }): DemoRun {
  const pace = paceOf(options.pace)
  let hurried = false
  let current: Worker | undefined
  const wakers = new Set<() => void>()
  const wait = (ms: number) =>
    hurried || ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => (wakers.add(resolve), setTimeout(resolve, ms)))
  const announce = (name: DemoStoryStep['name'], text: string) => {
    options.print(`▸ ${text}`)
    options.announce?.({ name, text })
  }
  const story = (async (): Promise<DemoSummary> => {
    const { choice, file } = await prepareFile(options)
    const paceNow = () => (hurried ? { ...pace, stepMs: 0, messageMs: 0 } : pace)
    current = startWorker(
      file,
      { phase: '1', ...paceNow() },
      {
        print: options.print,
        step: (name, text) => announce(name as DemoStoryStep['name'], text),
        crash: () => void wait(options.crashAfterMs ?? DEMO_LIMITS.crashAfterMs).then(() => current?.child.kill('SIGKILL')),
      },
    )
    const killedPid = current.child.pid
    await current.exited
    options.print(`✖ crash: the bot process was killed with SIGKILL in the middle of its work (pid ${killedPid})`)
    // Printed just above in its own words: told to the dashboard only.
    options.announce?.({
      name: 'killed',
      text: `✖ pid ${killedPid} was killed with SIGKILL in the middle of its work: a reply sent, its handler not done`,
    })
    await wait(pace.stepMs)
    const metrics = await restart(file, { ...paceNow(), killedPid, live: options.live === true })
    if (options.live)
      announce('told', 'the story is told: live traffic goes on until you quit (q); then the summary, as the dashboard counts')
    return { ...(await demoJournalNow(file)), file, scope: DEMO_SCOPE, backend: `sqlite:${choice.file}`, metrics }
  })()

  /** Phase 2: resolves with the story's metrics (its first summary), while the process may go on live. */
  function restart(file: string, worker: DemoPace & { killedPid?: number; live: boolean }): Promise<Record<string, number>> {
    return new Promise((resolvePromise, reject) => {
      current = startWorker(
        file,
        { phase: '2', ...worker },
        {
          print: options.print,
          step: (name, text) => announce(name as DemoStoryStep['name'], text),
          summary: (metrics) => resolvePromise(metrics),
        },
      )
      current.exited.then(({ metrics }) => resolvePromise(metrics), reject)
    })
  }

  return {
    story,
    hurry: () => {
      hurried = true
      current?.child.stdin?.write('hurry\n')
      for (const wake of wakers) wake()
    },
    stop: async () => {
      if (!options.live) return
      await story.catch(() => undefined)
      current?.child.kill('SIGTERM')
      await current?.exited
    },
  }
}

/** The file this demo journals to, ready (and said). */
async function prepareFile(options: DemoOptions): Promise<{ choice: DemoFileChoice; file: string }> {
  const choice = await chooseDemoFile(options.file ?? DEMO_FILE_DEFAULT, options.startOver)
  const file = resolve(choice.file)
  // Owner only, as the README promises for journal directories: the journal holds users' messages.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  if (options.startOver) await clearDemoScope(file)
  options.print(`botmesh demo: a bot with a simulated channel, journaling to ${file}`)
  const note = keptNote(choice)
  if (note) options.print(note)
  return { choice, file }
}

/** The demo's summary: the counts, what the restart did, and what to try next (each hint whole). */
export function tellSummary(summary: DemoSummary, out: Pick<DemoOptions, 'print' | 'command'>): void {
  const { metrics } = summary
  out.print('')
  out.print(`inbox:  ${describe(summary.inbox, INBOX_STATES)}`)
  out.print(`outbox: ${describe(summary.outbox, OUTBOX_STATES)}`)
  out.print(
    `after the restart: replayed ${metrics.inboundReplayed ?? 0}, redeliveries recognised ${metrics.inboundDuplicates ?? 0}, answered from the outbox ${metrics.outboxDeduped ?? 0}, ambiguous ${metrics.outboxAmbiguous ?? 0}`,
  )
  out.print('')
  // Each hint names the backend the demo used, so it works as pasted whatever --backend was.
  const backend = `--backend ${shellWord(summary.backend)}`
  const command = out.command ?? ((line: string) => out.print(`  ${line}`))
  out.print('Try next:')
  command(`npx botmesh stats ${backend}`)
  command(`npx botmesh dlq list ${backend}`)
  if (summary.deadInbox[0]) command(`npx botmesh replay ${shellWord(summary.deadInbox[0])} ${backend}`)
  if (summary.deadOutbox[0]) command(`npx botmesh retry ${shellWord(summary.deadOutbox[0])} ${backend}`)
}

/** The counts as the dashboard shows them: its states in its order, `done 59, dead 3` (those above 0). */
function describe(counts: DemoCounts['inbox'], states: readonly string[]): string {
  const known = new Set(states)
  return (
    [...states, ...Object.keys(counts).filter((state) => !known.has(state))]
      .filter((state) => (counts[state] ?? 0) > 0)
      .map((state) => `${state} ${counts[state]}`)
      .join(', ') || 'empty'
  )
}

/** A word a POSIX shell reads back as is: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}
