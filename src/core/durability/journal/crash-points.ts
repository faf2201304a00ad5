/**
 * Every journal write the engine makes has a stable name, so the crash-testing kit can "kill" a
 * bot right before or right after it (`crashable(backend).crashBefore('outbox.markSent')`).
 */
export const CRASH_POINTS = [
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

/** The name of one journal write. */
export type CrashPoint = (typeof CRASH_POINTS)[number]

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
