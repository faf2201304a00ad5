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

/** Hang detectors, far above what each takes at load 20: a process loading its modules, a run until its kill, the drain. */
const WARM_TIMEOUT_MS = 60_000
const RUN_TIMEOUT_MS = 60_000
const DRAIN_TIMEOUT_MS = 120_000

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

export async function runKillNine(storage: SharedStorage, options: { seed: number; kills: number }): Promise<KillNineResult> {
  const workload = killNineWorkload(options.seed)
  const plan = killPlan(options.seed, options.kills, workload.messages.length)
  const channel = new ChannelDouble(workload)
  const config: KillNineBotConfig = { backendModule: storage.module, backendArg: storage.arg, instanceId: 'kill-nine-1' }
  const landed: LandedKill[] = []
  const processes: KillNineProcess[] = []
  const spawned = () => processes[processes.push(new KillNineProcess()) - 1]!
  const state = () => `(${landed.length} kills, ${channel.acknowledged} acknowledged, ${channel.replied} answered)`
  try {
    let next = spawned()
    for (let incarnation = 0; incarnation <= options.kills; incarnation++) {
      const current = next
      await settles(`bot process ${incarnation} loading ${state()}`, current.warm, WARM_TIMEOUT_MS)
      if (incarnation < options.kills) next = spawned()
      const planned = plan[incarnation]
      channel.attach(current, incarnation, planned ? killAt(planned, channel, landed, incarnation) : () => undefined)
      current.start(config)
      if (planned) await untilKilled(current, channel, `bot process ${incarnation}, to be killed ${JSON.stringify(planned)} ${state()}`)
      else await drain(current, channel, `the drain after the last restart ${state()}`)
    }
  } finally {
    for (const process of processes) process.kill()
    await Promise.all(processes.map((process) => settles('a bot process to exit', process.gone).catch(() => undefined)))
  }
  const verdict = killNineVerdict(channel)
  const phases = Object.fromEntries(KILL_PHASES.map((phase) => [phase, landed.filter((kill) => kill.phase === phase).length]))
  const report = verdict.problems.length > 0 ? await failureReport({ storage, channel, verdict, landed, seed: options.seed }) : ''
  return { ...verdict, seed: options.seed, kills: landed.length, phases: phases as Record<KillPhase, number>, report }
}

/** The decision of one process's moments: the planned kill, at its occurrence of its phase once enough replies are in. */
function killAt(planned: PlannedKill, channel: ChannelDouble, landed: LandedKill[], incarnation: number): KillDecision {
  let seen = 0
  let fired = false
  return (phase) => {
    if (fired || phase !== planned.phase || channel.replied < planned.afterReplies || ++seen < planned.occurrence) return undefined
    fired = true
    landed.push({ incarnation, phase, replies: channel.replied })
    return { delayMs: phase === 'after' ? planned.delayMs : 0 }
  }
}

async function untilKilled(process: KillNineProcess, channel: ChannelDouble, what: string): Promise<void> {
  const ended = await settles(what, Promise.race([process.gone, channel.settled.promise.then(() => 'drained')]), RUN_TIMEOUT_MS)
  if (ended === 'drained') throw new Error(`${what}: every message was answered before the kill could land; the workload is too short`)
  if (!process.killed) throw new Error(`${what}: it ended by itself (${ended}): ${process.stderr}`)
  await process.gone
}

async function drain(process: KillNineProcess, channel: ChannelDouble, what: string): Promise<void> {
  const ended = await settles(what, Promise.race([channel.settled.promise.then(() => 'settled'), process.gone]), DRAIN_TIMEOUT_MS)
  if (ended !== 'settled') throw new Error(`${what}: the last bot process exited (${ended}): ${process.stderr}`)
  process.send({ drain: true })
  const how = await settles(`${what}: the bot's stop`, process.gone, DRAIN_TIMEOUT_MS)
  if (how !== '0') throw new Error(`${what}: the last bot process did not stop cleanly (${how}): ${process.stderr}`)
}

/** The one summary line of a backend's run. */
export function summaryLine(backend: string, result: KillNineResult): string {
  const phases = KILL_PHASES.map((phase) => `${phase} ${result.phases[phase]}`).join(', ')
  return (
    `kill -9, ${backend} (seed ${result.seed}): ${result.kills} kills (${phases}), ${result.messages} messages, ` +
    `${result.acknowledged} acknowledged, ${result.replies} replies (${result.calls} provider calls), ` +
    `duplicates ${result.duplicates} (ambiguous: ${result.ambiguous} sends taken back, ${result.ambiguousAfterCall} after the provider was called), ` +
    `lost ${result.lost}, order violations ${result.orderViolations.length}`
  )
}
