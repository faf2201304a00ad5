/**
 * Every journal write the engine makes has a stable name, so the crash-testing kit can "kill" a
 * bot right before or right after it (`crashable(backend).crashBefore('outbox.markSent')`).
 */
export const WRITE_CRASH_POINTS = [
  'inbox.admit',
  'inbox.claim',
  'inbox.heartbeat',
  'inbox.complete',
  'inbox.dead',
  'outbox.journal',
  'outbox.claim',
  'outbox.heartbeat',
  'outbox.split',
  'outbox.markSent',
  'outbox.markFailed',
  'outbox.markDead',
  'outbox.markUnknown',
  'outbox.defer',
  'instances.beat',
  'retention.purge',
] as const

/**
 * The steps engine's calls of a store's steps (steps/journal-steps.ts), one each: a step is one
 * operation of the store, so a crash falls before it reached the store or after it landed, as at a write.
 */
export const STEP_CRASH_POINTS = ['steps.admit', 'steps.journal', 'steps.settle', 'steps.takeBack'] as const

/** Every crash point: the journal's writes, then the steps (appended, so the writes keep their places and random seeds their cases). */
export const CRASH_POINTS = [...WRITE_CRASH_POINTS, ...STEP_CRASH_POINTS] as const

/** The name of one journal write or step. */
export type CrashPoint = (typeof CRASH_POINTS)[number]

/** The name of one step of the steps engine. */
export type StepCrashPoint = (typeof STEP_CRASH_POINTS)[number]

/** Writes made by an operator's tool (CLI, dashboard) rather than a running bot; never crash points. */
export const OPERATOR_WRITES = [
  'operator.replay',
  'operator.retry',
  'operator.discard',
  'operator.purge',
  'operator.import',
  'operator.rekey',
] as const
/** The name of an operator's journal write (the CLI, the dashboard). */
export type OperatorWrite = (typeof OPERATOR_WRITES)[number]

/** Writes of replica coordination: chat turns and the leader-only transport session. */
export const COORDINATION_WRITES = [
  'turn.queue',
  'turn.claim',
  'turn.requeue',
  'turn.heartbeat',
  'turn.release',
  'session.claim',
  'session.heartbeat',
  'session.release',
] as const
/** The name of a replica-coordination write. */
export type CoordinationWrite = (typeof COORDINATION_WRITES)[number]

/** The name of any journal write. */
export type WriteName = CrashPoint | OperatorWrite | CoordinationWrite

/**
 * What a journal write is called: one name, or the names of the writes merged into it (a reply's
 * `outbox.markSent` riding with its message's `inbox.complete`: one round trip instead of two).
 * A crash point named in a merged write is reached by that write.
 */
export type WriteLabel = WriteName | readonly WriteName[]

/** The names a label stands for. */
export function writeNames(label: WriteLabel): readonly WriteName[] {
  return typeof label === 'string' ? [label] : label
}

/** A label for messages: the names joined by `+`. */
export function describeLabel(label: WriteLabel): string {
  return typeof label === 'string' ? label : label.join('+')
}
