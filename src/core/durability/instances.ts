/**
 * The instance heartbeat: a running bot writes a record for its instance into its scope every few
 * seconds (host, pid, start time, last sweep, its metrics), so the CLI and the dashboard see live
 * replicas without talking to the process. The record counts as live until `expiresAt`. A run that
 * finds its instanceId's record left behind says so in its own (`previousRun`): the run before died.
 */
import { hostname } from 'node:os'
import type { DurabilityEngine } from './engine.js'
import { LIMITS } from './limits.js'
import type { InstanceRecord, PreviousRun } from './journal/records.js'

export class InstanceBeat {
  #version = 0
  /** On the backend's clock, like every other time in the record (set by the first beat). */
  #startedAt: number | undefined

  /** The earlier run whose record the first beat took over: it ended without a graceful stop. */
  #previous: Omit<PreviousRun, 'inboxTakenBack' | 'outboxTakenBack'> | undefined

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly botId: string,
    private readonly lastSweepAt: () => number | null,
    /** What the sweeps took back of the earlier run's leases. */
    private readonly takenBack: () => { inbox: number; outbox: number },
  ) {}

  /** Writes the heartbeat (compare-and-set; a record left by an earlier incarnation is taken over). */
  async beat(): Promise<void> {
    const now = this.engine.now()
    this.#startedAt ??= now
    for (let tries = 0; tries < 2; tries++) {
      const [result] = await this.engine.journal.write('instances.beat', [
        { kind: 'instances', record: this.#record(now), expectVersion: this.#version },
      ])
      if (result!.ok) {
        this.#version = result!.version
        return
      }
      // A graceful stop removes its record: one found before this run's first beat was left by a run
      // that died (killed, crashed), and is kept as the previous run until this one stops.
      const left = result!.current?.record as InstanceRecord | undefined
      if (this.#version === 0 && left && !this.#previous && left.startedAt !== this.#startedAt)
        this.#previous = { host: left.host, pid: left.pid, startedAt: left.startedAt, lastBeatAt: left.lastBeatAt }
      this.#version = result!.current?.version ?? 0
    }
  }

  /** Whether this run took over the record of an earlier one that died. */
  get tookOver(): boolean {
    return this.#previous !== undefined
  }

  #record(now: number): InstanceRecord {
    const taken = this.takenBack()
    return {
      instanceId: this.engine.instanceId,
      botId: this.botId,
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt!,
      lastBeatAt: now,
      lastSweepAt: this.lastSweepAt(),
      expiresAt: now + LIMITS.instanceBeatMs * LIMITS.instanceBeatsToLive,
      metrics: { ...this.engine.metrics.snapshot() },
      limits: {
        inboxMaxAttempts: this.engine.config.inbox.maxAttempts,
        outboxRetries: this.engine.config.outbox.retries,
        retentionMs: this.engine.config.retentionMs,
      },
      ...(this.#previous && { previousRun: { ...this.#previous, inboxTakenBack: taken.inbox, outboxTakenBack: taken.outbox } }),
    }
  }

  /** Removes the heartbeat on a graceful stop, so the instance shows as gone at once. */
  async remove(): Promise<void> {
    if (this.#version === 0) return
    await this.engine.journal.write('instances.beat', [{ kind: 'instances', delete: this.engine.instanceId, expectVersion: this.#version }])
    this.#version = 0
  }
}
