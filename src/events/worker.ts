/**
 * `EventWorker`: claims records of one channel from a `LeasedEventJournal` and runs a handler on
 * each, keeping the lease alive while it runs. A worker never claims records that have a channel
 * unless it asks for that channel: a worker without a channel takes only records without one (so
 * it never runs the bot's 'botwa:durable' records, nor another app's).
 */
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import { backoffMs } from '../core/durability/backoff.js'
import { runsSpent } from '../core/durability/leases/charged-runs.js'
import { BackgroundLoop } from '../core/durability/loop.js'
import { ConfigError, LeaseLostError } from '../core/errors/errors.js'
import type { LeasedEventJournal } from './journal.js'
import { WORKER_DEFAULTS } from './limits.js'
import type { EventRecord } from './record.js'

/** What a handler gets besides the record. */
export interface EventRunContext {
  /** Aborted when the lease was lost (another worker may be running the record now). */
  signal: AbortSignal
}

/** Options of `EventWorker`. */
export interface EventWorkerOptions {
  /** Runs one record. Resolving completes it; throwing fails the run (retried with backoff, dead after `maxAttempts`). */
  handler: (record: EventRecord, context: EventRunContext) => Promise<void> | void
  /** The channel whose records it claims. @default null (only records without a channel) */
  channel?: string | null
  /** @default null */
  scope?: string | null
  /** The lease owner. @default `<hostname>/<pid>/<random>` */
  owner?: string
  /** Lease of a running record, extended by a heartbeat every third of it. @default 30000 */
  leaseMs?: number
  /** Pause between two claims when nothing was due. @default 1000 */
  pollMs?: number
  /** Records claimed (and run concurrently) at a time. @default 10 */
  batchSize?: number
  /** Runs before a failing record is dead. @default 5 */
  maxAttempts?: number
  /** Pause before a failed record is retried: baseMs × 2^(runs−1), at most capMs. @default { baseMs: 1000, capMs: 60000 } */
  backoff?: {
    /** The first pause, in ms. @default 1000 */
    baseMs?: number
    /** The longest pause, in ms. @default 60000 */
    capMs?: number
  }
  /** Errors of the loop and of handlers (after the record was failed). @default ignore */
  onError?: (error: unknown, record?: EventRecord) => void
}

/** What a worker did so far. */
export interface EventWorkerStats {
  /** Events leased. */
  claimed: number
  /** Events the handler finished. */
  completed: number
  /** Runs that failed and left the event for a retry. */
  failed: number
  /** Events dead-lettered. */
  dead: number
  /** Completions or failures refused because the lease had been taken over. */
  staleLeases: number
}

/** A worker that leases events from an `@botmesh/events` journal and runs a handler on each, with retries and dead letters, outside a bot. */
export class EventWorker {
  /** The lease owner it claims as. */
  readonly owner: string
  /** The channel it takes events of (null: every channel). */
  readonly channel: string | null
  /** What it did so far. */
  readonly stats: EventWorkerStats = { claimed: 0, completed: 0, failed: 0, dead: 0, staleLeases: 0 }
  readonly #journal: LeasedEventJournal
  readonly #options: Required<Pick<EventWorkerOptions, 'leaseMs' | 'pollMs' | 'batchSize' | 'maxAttempts'>> & EventWorkerOptions
  readonly #backoff: { baseMs: number; capMs: number }
  readonly #loop: BackgroundLoop
  readonly #running = new Set<Promise<void>>()

  constructor(journal: LeasedEventJournal, options: EventWorkerOptions) {
    if (typeof options?.handler !== 'function') throw new ConfigError('EventWorker: handler must be a function')
    this.#journal = journal
    this.#options = {
      ...options,
      leaseMs: options.leaseMs ?? WORKER_DEFAULTS.leaseMs,
      pollMs: options.pollMs ?? WORKER_DEFAULTS.pollMs,
      batchSize: options.batchSize ?? WORKER_DEFAULTS.batchSize,
      maxAttempts: options.maxAttempts ?? WORKER_DEFAULTS.maxAttempts,
    }
    for (const name of ['leaseMs', 'pollMs', 'batchSize', 'maxAttempts'] as const) {
      const value = this.#options[name]
      if (!Number.isFinite(value) || value <= 0)
        throw new ConfigError(`EventWorker: ${name} must be a positive number, got ${String(value)}`)
    }
    this.#backoff = {
      baseMs: options.backoff?.baseMs ?? WORKER_DEFAULTS.backoff.baseMs,
      capMs: options.backoff?.capMs ?? WORKER_DEFAULTS.backoff.capMs,
    }
    this.owner = options.owner ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    this.channel = options.channel ?? null
    this.#loop = new BackgroundLoop(
      'event-worker',
      () => this.#options.pollMs,
      () => this.#tick(),
      (error) => this.#options.onError?.(error),
    )
  }

  /** Starts claiming in the background. Idempotent. */
  start(): void {
    this.#loop.start()
  }

  /** Stops claiming and waits for the records being run. Idempotent. */
  async stop(): Promise<void> {
    await this.#loop.stop()
    while (this.#running.size > 0) await Promise.all(this.#running)
  }

  /** Claims once and runs what it claimed; resolves to how many records it ran. */
  async runOnce(): Promise<number> {
    const records = await this.#journal.claim({
      owner: this.owner,
      channel: this.channel,
      scope: this.#options.scope ?? null,
      limit: this.#options.batchSize,
      leaseMs: this.#options.leaseMs,
      maxAttempts: this.#options.maxAttempts,
    })
    this.stats.claimed += records.length
    await Promise.all(records.map((record) => this.#track(this.#run(record))))
    return records.length
  }

  async #tick(): Promise<void> {
    // A full batch suggests more is due: claim again at once instead of waiting a poll.
    if ((await this.runOnce()) === this.#options.batchSize) this.#loop.kick()
  }

  #track(run: Promise<void>): Promise<void> {
    this.#running.add(run)
    return run.finally(() => this.#running.delete(run))
  }

  async #run(record: EventRecord): Promise<void> {
    const claim = { id: record.id, token: record.lease!.token }
    const lost = new AbortController()
    const heartbeat = setInterval(() => {
      this.#journal.heartbeat([claim], this.#options.leaseMs).then(
        ([held]) => held || lost.abort(new LeaseLostError('event', claim.id, claim.token)),
        (error: unknown) => this.#options.onError?.(error, record),
      )
    }, this.#options.leaseMs / 3)
    heartbeat.unref()
    let failure: { error: unknown } | undefined
    try {
      await this.#options.handler(record, { signal: lost.signal })
    } catch (error) {
      failure = { error }
    } finally {
      clearInterval(heartbeat)
    }
    try {
      if (!failure) {
        await this.#journal.complete(claim)
        this.stats.completed++
        return
      }
      const dead = runsSpent(record.attempts, this.#options.maxAttempts)
      // The engine's backoff curve (core/durability/backoff.ts), without jitter.
      const retryAt = (await this.#journal.now()) + backoffMs({ ...this.#backoff, jitter: 0 }, record.attempts)
      await this.#journal.fail(claim, failure.error, dead ? { dead: true } : { retryAt })
      this.stats[dead ? 'dead' : 'failed']++
      this.#options.onError?.(failure.error, record)
    } catch (error) {
      if (error instanceof LeaseLostError) this.stats.staleLeases++
      else this.#options.onError?.(error, record)
    }
  }
}
