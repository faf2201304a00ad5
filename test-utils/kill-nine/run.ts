/**
 * The kill -9 test on a shared backend: a durable bot in a child process is SIGKILLed at seeded
 * moments in every phase of a message's path (kill-plan.ts) and started again each time with the
 * same instanceId, while the channel double (channel.ts) streams messages over several chats and
 * redelivers what it saw no acknowledgement for. After the last restart everything drains, and the
 * verdict (verdict.ts) reads the channel's log. The next process is spawned while the current one
 * runs and waits warm, so a restart costs the bot's start, not Node's.
 */
import type { KillNineBotConfig } from '../../test/fixtures/kill-nine/protocol.js'
import type { SharedStorage } from '../../test/backends/shared-targets.js'
import { settles } from '../wait.js'
import { KillNineProcess } from './bot-process.js'
import { ChannelDouble, type KillDecision } from './channel.js'
import { KILL_PHASES, killPlan, type KillPhase, type PlannedKill } from './kill-plan.js'
import { killNineVerdict, type KillNineVerdict } from './verdict.js'
import { killNineWorkload } from './workload.js'
import { failureReport } from './report.js'

/** A process loading its modules longer than this fails the run (a hang detector, far above what it takes at load 20). */
const WARM_TIMEOUT_MS = 60_000
/**
 * A live bot silent this long, with work the channel waits for, has stopped: a reply it will never
 * send (a loss), or a hang. The run stops there and the verdict says what is missing. A healthy bot
 * is never silent this long with work in flight, at any load that lets the test run at all.
 */
const STALL_MS = 30_000
/** The last process's graceful stop, at most (a hang detector). */
const STOP_TIMEOUT_MS = 120_000

export interface KillNineResult extends KillNineVerdict {
  seed: number
  kills: number
  /** Kills per phase. */
  phases: Record<KillPhase, number>
  /** A failure's report (seed, kills, the suspects' channel histories and journal records); empty when none. */
  report: string
}

/** Where one kill landed. */
export interface LandedKill {
  incarnation: number
  phase: KillPhase
  /** Distinct replies the channel held then. */
  replies: number
}

/** How a bot process's run ended, as the runner saw it. */
type RunEnd = 'killed' | 'settled' | { stalled: string } | { exited: string }

export async function runKillNine(storage: SharedStorage, options: { seed: number; kills: number }): Promise<KillNineResult> {
  const workload = killNineWorkload(options.seed, options.kills)
  const plan = killPlan(options.seed, options.kills)
  const channel = new ChannelDouble(workload)
  const config: KillNineBotConfig = { backendArg: storage.arg, instanceId: 'kill-nine-1' }
  const landed: LandedKill[] = []
  const processes: KillNineProcess[] = []
  const spawned = () => processes[processes.push(new KillNineProcess(storage.module)) - 1]!
  /** Why the run ended before its last kill, or its drain failed: a problem of the verdict. */
  let cut: string | undefined
  try {
    let next = spawned()
    for (let incarnation = 0; ; incarnation++) {
      const current = next
      await settles(`bot process ${incarnation} loading`, current.warm, WARM_TIMEOUT_MS)
      const planned = plan[incarnation]
      if (planned) next = spawned()
      channel.attach(current, incarnation, planned ? killAt(planned, channel, landed, incarnation) : () => undefined)
      current.start(config)
      const end = await runEnd(current, channel)
      if (end === 'killed') continue
      if (planned) cut = `bot process ${incarnation} was to be killed (${JSON.stringify(planned)}), and ${said(end, channel)}`
      else if (end !== 'settled') cut = `after the last restart, ${said(end, channel)}`
      else cut = await stop(current)
      break
    }
  } finally {
    for (const process of processes) process.kill()
    await Promise.all(processes.map((process) => settles('a bot process to exit', process.gone).catch(() => undefined)))
  }
  const verdict = killNineVerdict(channel)
  if (cut) verdict.problems.unshift(`the run ended early: ${cut}`)
  const phases = Object.fromEntries(KILL_PHASES.map((phase) => [phase, landed.filter((kill) => kill.phase === phase).length]))
  const report = verdict.problems.length > 0 ? await failureReport({ storage, channel, verdict, landed, seed: options.seed }) : ''
  return { ...verdict, seed: options.seed, kills: landed.length, phases: phases as Record<KillPhase, number>, report }
}

/** The decision of one process's moments: the planned kill, at its occurrence of its phase. */
function killAt(planned: PlannedKill, channel: ChannelDouble, landed: LandedKill[], incarnation: number): KillDecision {
  let seen = 0
  let fired = false
  return (phase) => {
    if (fired || phase !== planned.phase || ++seen < planned.occurrence) return undefined
    fired = true
    landed.push({ incarnation, phase, replies: channel.replied })
    return { delayMs: phase === 'after-call' ? planned.delayMs : 0 }
  }
}

/** Waits until the process is gone (killed by the channel, or by itself), everything is answered, or the bot went silent. */
async function runEnd(process: KillNineProcess, channel: ChannelDouble): Promise<RunEnd> {
  let over = false
  const gone = process.gone.then((how): RunEnd => (process.killed ? 'killed' : { exited: `${how}: ${process.stderr}` }))
  const settled = channel.allAnswered.promise.then((): RunEnd => 'settled')
  const stalled = (async (): Promise<RunEnd> => {
    while (!over && channel.quietMs < STALL_MS) await new Promise((resolve) => setTimeout(resolve, 50))
    return { stalled: `it was silent for ${STALL_MS} ms` }
  })()
  try {
    return await Promise.race([gone, settled, stalled])
  } finally {
    over = true
  }
}

/** Says how a run ended that was not the one planned. */
function said(end: Exclude<RunEnd, 'killed'>, channel: ChannelDouble): string {
  const where = `${channel.acknowledged} acknowledged, ${channel.replied} answered, waiting for replies to ${channel.unanswered().join(' ') || 'none'}`
  if (end === 'settled') return `every message was answered before the kill could land (the workload is too short; ${where})`
  if ('stalled' in end) return `${end.stalled} (${where})`
  return `it exited by itself (${end.exited}; ${where})`
}

/** The last process finishes its work and stops; a sentence when it does not stop cleanly. */
async function stop(process: KillNineProcess): Promise<string | undefined> {
  process.send({ drain: true })
  const how = await settles("the last bot process's stop", process.gone, STOP_TIMEOUT_MS)
  return how === '0' ? undefined : `the last bot process did not stop cleanly (${how}): ${process.stderr}`
}

/** The one summary line of a backend's run. */
export function summaryLine(backend: string, result: KillNineResult): string {
  const phases = KILL_PHASES.map((phase) => `${phase} ${result.phases[phase]}`).join(', ')
  return (
    `kill -9, ${backend} (seed ${result.seed}): ${result.kills} kills (${phases}), ${result.messages} messages, ` +
    `${result.acknowledged} acknowledged, ${result.replies} replies (${result.calls} provider calls), ` +
    `duplicates ${result.duplicates} (ambiguous window: ${result.takenBack} sends taken back after a kill, ${result.takenBackAfterCall} of them after the provider was called), ` +
    `lost ${result.lost}, order violations ${result.orderViolations.length} (of ${result.orderedPairs} ordered pairs)`
  )
}
