/**
 * Every limit of the engine, named, with units last, in one place. The options a user sets (leases,
 * backoff, retries) live in config.ts; these bound loops, batches and caches.
 */
export const LIMITS = {
  /** Delivery reports of sends still in flight kept for the sweeper (the oldest go first). @default 10000 */
  deliveryReportsHeldMax: 10_000,
  /** The shortest outbox lease the bot accepts: heartbeats must fit well inside it. */
  outboxLeaseMinMs: 20,
  /** The shortest inbox lease the bot accepts. */
  inboxLeaseMinMs: 20,
  /** Records one sweep claims per journal. */
  sweepBatchMax: 100,
  /** Records a restarted instance inspects to reclaim its own leases on its first sweep. */
  reclaimScanMax: 10_000,
  /**
   * Links a sweep follows back from a due inbound record to the unfinished message of its chat it
   * queues behind (lane-takeover.ts): a head the due batch missed is taken with it.
   */
  laneWalkMax: 100,
  /** Records one retention pass deletes per state (one backend call each: a statement, a script). */
  purgeBatchMax: 1_000,
  /** How long retention waits after a pass that caught up (found less than a batch) before the next. */
  purgeEveryMs: 1_000,
  /** How long retention yields after a full batch before the next pass, so the hot path gets the backend between batches. */
  purgeBacklogPauseMs: 10,
  /** Expired records the purge backlog counts per state before it says "at least". */
  purgeBacklogCountMax: 1_000_000,
  /** Entries one page holds when a store without a count of its own counts a state's older entries. */
  countPageMax: 1_000,
  /**
   * Messages (and sends) a process holds in flight before it slows its intake: past it, an admitted
   * message is acknowledged to its channel only once the count is back under it, and the sweeper
   * claims no more inbound records meanwhile. A channel delivering faster than the handlers run
   * then waits (what it delivers is journaled first, as always) instead of the process holding
   * every admitted message in memory.
   */
  inFlightMax: 10_000,
  /**
   * In-flight work under which a back-pressure episode counts as over, for the operator's log: a
   * process hovering at inFlightMax is told once that intake waits, not each time the count
   * crosses it (intake itself goes on as soon as there is room).
   */
  inFlightCalm: 5_000,
  /** Recently admitted event ids remembered in memory, to recognise redeliveries without a round trip. */
  dedupeCacheMax: 10_000,
  /** How often the instance heartbeat is written. */
  instanceBeatMs: 5_000,
  /** An instance record counts as live this many beats after its last one. */
  instanceBeatsToLive: 3,
  /** How long `stop()` waits for work in flight. */
  stopTimeoutMs: 30_000,
  /** How long `idle()` waits before it gives up. */
  idleTimeoutMs: 60_000,
  /** How long `idle()` waits before it looks again for work that became due. */
  idleRecheckMs: 5,
  /** Sends of one broadcast in flight at once, when the caller gives no concurrency. */
  broadcastConcurrencyDefault: 1,
  /** Tries of a write that records a known outcome (sent, done) while the journal is unavailable, over half the lease, once the backoff stopped growing. */
  settlingWriteAttemptsMax: 20,
  /** Records that fed a conversation's steps, remembered in its checkpoint (a replay of one feeds nothing). */
  conversationFedMax: 50,
  /** Sends journaled but not yet handed to the provider that a run remembers (an overflow only costs an ambiguous send). */
  unstartedSendsMax: 10_000,
  /** Inbound claims whose journal write went unanswered that a run remembers (an overflow only costs a run charged twice). */
  unrunClaimsMax: 10_000,
  /** Parts of one split send followed when a send is answered from the outbox (a bound on the walk). */
  splitPartsMax: 10_000,
  /** How far a new backend-clock estimate may fall behind the last time given out and still be held there (round-trip jitter); a larger step back is a real correction. */
  clockJitterMaxMs: 1_000,
  /** The shortest chat-turn or transport-session lease the bot accepts: heartbeats must fit well inside it. */
  turnLeaseMinMs: 20,
  /** First wait of a message for its chat's turn held elsewhere; doubled on each look, up to turnWaitMaxMs. */
  turnWaitMinMs: 10,
  /** Longest wait between two looks at a chat's turn held elsewhere (a local release wakes waiters at once). */
  turnWaitMaxMs: 200,
  /** Messages a chat's turn record keeps queued in arrival order (a full queue still serializes, in claim order). */
  turnQueueMax: 1_000,
  /** Ids a chat's turn record keeps of the places it gave up as never journaled (TurnRecord.gaveUp). */
  turnGaveUpMax: 100,
  /** Chats whose turn record a process remembers, to claim a turn without reading it first. */
  turnCacheMax: 10_000,
  /**
   * The longest inbox id or idempotency key journaled as it is, in UTF-8 bytes, on every backend; a
   * longer one (or one holding a NUL) is journaled under its digest (journal-key.ts).
   */
  idBytesMax: 512,
  /** Lease renewals happen this many times per lease period. */
  heartbeatsPerLease: 3,
  /** Tries of a message's settle (steps engine) while the store is unavailable, backing off, before the message is left to its lease. */
  settleTriesMax: 3,
} as const
