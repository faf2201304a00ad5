/**
 * The instance heartbeat: a running bot writes a record for its instance into its scope every few
 * seconds (host, pid, start time, last sweep, its metrics), so the CLI and the dashboard see live
 * replicas without talking to the process. The record counts as live until `expiresAt`.
 */
import { hostname } from 'node:os'
import type { DurabilityEngine } from './engine.js'
import { LIMITS } from './limits.js'
import type { InstanceRecord } from './records.js'

export class InstanceBeat {
  #version = 0
  /** On the backend's clock, like every other time in the record (set by the first beat). */
  #startedAt: number | undefined

  constructor(
    private readonly engine: DurabilityEngine,
    private readonly botId: string,
    private readonly lastSweepAt: () => number | null,
  ) {}

  /** Writes the heartbeat (compare-and-set; a record left by an earlier incarnation is taken over). */
  async beat(): Promise<void> {
    const now = this.engine.now()
    this.#startedAt ??= now
    const record: InstanceRecord = {
      instanceId: this.engine.instanceId,
      botId: this.botId,
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt,
      lastBeatAt: now,
      lastSweepAt: this.lastSweepAt(),
      expiresAt: now + LIMITS.instanceBeatMs * LIMITS.instanceBeatsToLive,
      metrics: { ...this.engine.metrics.snapshot() },
      limits: {
        inboxMaxAttempts: this.engine.config.inbox.maxAttempts,
        outboxRetries: this.engine.config.outbox.retries,
        retentionMs: this.engine.config.retentionMs,
      },
    }
    for (let tries = 0; tries < 2; tries++) {
      const [result] = await this.engine.journal.write('instances.beat', [{ kind: 'instances', record, expectVersion: this.#version }])
      if (result!.ok) {
        this.#version = result!.version
        return
      }
      this.#version = result!.current?.version ?? 0
    }
  }

  /** Removes the heartbeat on a graceful stop, so the instance shows as gone at once. */
  async remove(): Promise<void> {
    if (this.#version === 0) return
    await this.engine.journal.write('instances.beat', [{ kind: 'instances', delete: this.engine.instanceId, expectVersion: this.#version }])
    this.#version = 0
  }
}
