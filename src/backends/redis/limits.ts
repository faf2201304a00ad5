/**
 * Every limit of the Redis backend, named, with units last, in one place. Timeouts keep an
 * unreachable server from hanging a bot or the CLI; batch limits keep any one Lua script short,
 * because Redis runs nothing else while a script runs.
 */
export const REDIS_LIMITS = {
  /** How long opening a connection may take before it counts as failed. */
  connectTimeoutMs: 5_000,
  /** How long one command may wait for its reply (queued while reconnecting included). */
  commandTimeoutMs: 5_000,
  /** The longest pause between two reconnection attempts. */
  reconnectMaxMs: 1_000,
  /**
   * Behind Sentinel, how often the settings of a primary its checks refused after a failover are
   * read again (primary-watch.ts), at most: its calls fail until a read finds them fixed.
   */
  refusedPrimaryRecheckMs: 5_000,
  /**
   * Compare-and-set ops applied by one script call (group commit: the ops of concurrent writes
   * together); more wait for the next call.
   */
  writeBatchMax: 256,
  /**
   * WRITE script calls in flight per lane (the server, or one hash tag in a Cluster). Ops that
   * arrive while the lane is full queue and go together in the next call: 1 makes the batches
   * largest, and so the round trips fewest.
   */
  writeCallsInFlightMax: 1,
  /**
   * With `waitReplicas`, how long a batch of journal writes waits for that many replicas to confirm
   * it (replica-wait.ts) before it fails as JOURNAL_UNAVAILABLE.
   */
  waitTimeoutMs: 1_000,
  /** Keys read by one HMGET; a longer read is split into parallel calls. */
  getBatchMax: 1_000,
  /** Entries one purge script deletes; a larger purge runs several scripts one after another. */
  purgeBatchMax: 500,
  /** Fields a Lua script passes to one HMGET / ZREM (Lua's unpack has a stack limit near 8000). */
  scriptUnpackMax: 1_000,
  /** Members one SSCAN step returns while listing scopes. */
  scopesScanCount: 500,
  /** Keys one SCAN step looks at while searching for the prefixes that hold a journal (`mustExist`). */
  journalSearchScanCount: 1_000,
  /** SCAN steps per node that search, at most: a bound on the time a missing journal takes to report. */
  journalSearchScansMax: 200,
  /**
   * Chats one take-back (the steps' sweep, steps.ts) looks at, at most: a bound on the time its
   * script holds the server. The next pass goes on from where this one stopped.
   */
  takeBackChatsMax: 1_000,
  /** Chats one HSCAN step of a take-back returns (its COUNT). */
  takeBackScanCount: 100,
  /**
   * Steps carried by one call of the steps' script (step-batch.ts: the steps of concurrent
   * messages together); more wait for the next call.
   */
  stepBatchMax: 256,
  /**
   * How long a settle waits, at most, for another step to ride with when nothing else is queued
   * (step-batch.ts): off the critical path, it saves the call of its own. A crash within it leaves
   * the message's end unwritten, as a crash a moment before the settle would.
   */
  stepRideMs: 2,
  /** Entries kept in one chat's message log of a `RedisStore`; older ones are trimmed. */
  messageLogMax: 1_000,
} as const

/** The limits a caller may change. */
export interface RedisTimeouts {
  /** @default REDIS_LIMITS.connectTimeoutMs (5000) */
  connectTimeoutMs?: number
  /** @default REDIS_LIMITS.commandTimeoutMs (5000) */
  commandTimeoutMs?: number
}
