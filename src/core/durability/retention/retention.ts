/**
 * Retention: done and sent records are purged after `retention` (default 7d; 0 keeps them). A
 * redelivery is only recognised while its record exists, so keep it above your channels' longest
 * redelivery window.
 *
 * Purging keeps pace with traffic. A pass deletes at most `purgeBatchMax` records of each lane, a
 * lane's batch in one backend call (one statement, one script, one compare-and-set write), so no
 * pass holds the journal for long. While passes find full batches the next follows after a short
 * pause that lets the bot's own writes through; once a pass has caught up, the next comes after
 * `purgeEveryMs` (or the sweeper's `pollMs`, if longer). Only done and sent records past the retention go, each checked again as it is
 * deleted: a record replayed or retried meanwhile has left its state and stays.
 */
import type { Journal } from '../journal/backend.js'
import type { DurabilityEngine } from '../engine.js'
import { LIMITS } from '../limits.js'
import { BackgroundLoop } from '../loop.js'

/** What retention purges: inbound records done, and sends sent. Every other state is work or evidence. */
export const RETENTION_LANES = [
  { kind: 'inbox', state: 'done' },
  { kind: 'outbox', state: 'sent' },
] as const

/** What one pass deleted, and whether it found everything expired (no lane filled its batch). */
export interface PurgePass {
  purged: number
  caughtUp: boolean
}

/** One bounded pass: at most `batchMax` records of each lane last changed before `olderThan`. */
export async function purgePass(journal: Journal, olderThan: number, batchMax: number = LIMITS.purgeBatchMax): Promise<PurgePass> {
  const purged = await Promise.all(RETENTION_LANES.map(({ kind, state }) => journal.purge(kind, state, olderThan, batchMax)))
  return { purged: purged.reduce((sum, n) => sum + n, 0), caughtUp: purged.every((n) => n < batchMax) }
}

/** Expired records not yet purged, per lane, each counted up to a bound. */
export interface PurgeBacklog {
  inbox: number
  outbox: number
  total: number
  /** A lane held at least the bound: its figure is a floor. */
  capped: boolean
}

/** The records a pass would still find: done and sent records last changed before `olderThan`. */
export async function purgeBacklog(
  journal: Journal,
  olderThan: number,
  countMax: number = LIMITS.purgeBacklogCountMax,
): Promise<PurgeBacklog> {
  const [inbox, outbox] = await Promise.all(RETENTION_LANES.map(({ kind, state }) => journal.countOlder(kind, state, olderThan, countMax)))
  return { inbox: inbox!, outbox: outbox!, total: inbox! + outbox!, capped: inbox! >= countMax || outbox! >= countMax }
}

/** A bot's retention: passes back to back while behind, every `purgeEveryMs` (at least `pollMs`) once caught up. */
export class Retention {
  readonly #loop: BackgroundLoop
  #caughtUp = true

  constructor(
    private readonly engine: DurabilityEngine,
    onError: (error: unknown, loop: string) => void,
  ) {
    // Once caught up, no more often than the sweeper (a bot that parks its sweeper parks this too),
    // nor than purgeEveryMs, unless the retention itself is shorter.
    const caughtUpEveryMs = Math.max(engine.config.pollMs, Math.min(LIMITS.purgeEveryMs, engine.config.retentionMs))
    this.#loop = new BackgroundLoop(
      'retention',
      () => (this.#caughtUp ? caughtUpEveryMs : LIMITS.purgeBacklogPauseMs),
      async () => void (await this.pass()),
      onError,
    )
  }

  /**
   * Starts passing; resolves once the first pass is done (one bounded batch of each lane), so a
   * restarted bot takes up a backlog before its traffic. With retention 0 nothing is ever purged.
   */
  async start(): Promise<void> {
    if (this.engine.config.retentionMs <= 0) return
    this.#loop.start()
    await this.#loop.settled()
  }

  /** Stops, after the pass in flight. */
  stop(): Promise<void> {
    return this.#loop.stop()
  }

  /** One pass now, on the engine's clock. */
  async pass(): Promise<PurgePass> {
    const done = await purgePass(this.engine.journal, this.engine.now() - this.engine.config.retentionMs)
    this.#caughtUp = done.caughtUp
    return done
  }
}
