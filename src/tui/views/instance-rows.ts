/**
 * The Instances panel's rows (pure): each instance, and under it the runs of its instanceId that
 * died (killed, crashed: a run that finds its record left behind says so), as lost, with what they
 * held that the next run took back. The dashboard remembers a lost run for `lostRunShownMs` after
 * its last beat, also once the run that replaced it stopped. The state selects rows by these ids.
 */
import type { InstanceView } from '../../operator/instances.js'
import type { PreviousRun } from '../../core/durability/journal/records.js'
import { DASHBOARD_LIMITS } from '../limits.js'

/** A run that died, as the run of its instanceId that replaced it told. */
export interface LostRun {
  instanceId: string
  run: PreviousRun
  /** The pid of the run that took over. */
  byPid: number
}

/** A row: an instance, or a run of its instanceId that died. */
export type InstanceRow = { type: 'instance'; instance: InstanceView } | { type: 'lost'; lost: LostRun }

/** The lost runs the instances' records tell of. */
export function lostRunsOf(instances: readonly InstanceView[]): LostRun[] {
  return instances.flatMap((instance) =>
    instance.previousRun ? [{ instanceId: instance.instanceId, run: instance.previousRun, byPid: instance.pid }] : [],
  )
}

/** The lost runs to show at `now`: the fresh ones, then those remembered, while recent; at most `lostRunsMax`. */
export function rememberLostRuns(remembered: readonly LostRun[], fresh: readonly LostRun[], now: number): LostRun[] {
  const seen = new Set(fresh.map(lostRunId))
  return [...fresh, ...remembered.filter((lost) => !seen.has(lostRunId(lost)))]
    .filter((lost) => now - lost.run.lastBeatAt < DASHBOARD_LIMITS.lostRunShownMs)
    .slice(0, DASHBOARD_LIMITS.lostRunsMax)
}

export function instanceRows(instances: readonly InstanceView[], lostRuns: readonly LostRun[]): InstanceRow[] {
  const listed = new Set(instances.map((instance) => instance.instanceId))
  const lostOf = (id: string): InstanceRow[] => lostRuns.filter((lost) => lost.instanceId === id).map((lost) => ({ type: 'lost', lost }))
  return [
    ...instances.flatMap((instance): InstanceRow[] => [{ type: 'instance', instance }, ...lostOf(instance.instanceId)]),
    ...lostRuns.filter((lost) => !listed.has(lost.instanceId)).map((lost): InstanceRow => ({ type: 'lost', lost })),
  ]
}

/** A row's id: the instanceId, or the lost run's. */
export function instanceRowId(row: InstanceRow): string {
  return row.type === 'instance' ? row.instance.instanceId : lostRunId(row.lost)
}

function lostRunId(lost: LostRun): string {
  return `${lost.instanceId} (pid ${lost.run.pid} lost)`
}

/** "pid 4242 died holding 3 in 1 out, taken back by pid 4313" */
export function lostRunText({ run, byPid }: LostRun): string {
  return `pid ${run.pid} died holding ${run.inboxTakenBack} in ${run.outboxTakenBack} out, taken back by pid ${byPid}`
}
