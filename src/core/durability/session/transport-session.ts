/**
 * When a durable bot's transport runs: at start on every replica, or, with providerSession
 * 'leader', only on the replica elected to hold the session (session-leader.ts), started when it
 * is elected and stopped when the session passes on.
 */
import type { DurabilityEngine } from '../engine.js'
import type { Transport } from '../port.js'
import { SessionLeader } from './session-leader.js'

export class TransportSession {
  readonly #leader: SessionLeader | undefined
  #running = false
  #start: (() => Promise<void>) | undefined

  constructor(
    engine: DurabilityEngine,
    private readonly transport: Transport,
  ) {
    const { providerSession, sessionLeaseMs } = engine.config
    this.#leader =
      providerSession === 'leader'
        ? new SessionLeader(engine, sessionLeaseMs, { elected: () => this.#up(), deposed: () => this.#down() })
        : undefined
  }

  /** Starts the transport now, or joins the election and starts it once elected. */
  async start(startTransport: () => Promise<void>): Promise<void> {
    this.#start = startTransport
    if (this.#leader) await this.#leader.start()
    else await this.#up()
  }

  /** Leaves the election (handing the session back); the bot stops the transport itself. */
  async stop(): Promise<void> {
    await this.#leader?.stop()
  }

  get running(): boolean {
    return this.#running
  }

  /** Whether this replica holds the leader-only session (undefined without one). */
  isLeader(): boolean | undefined {
    return this.#leader?.isLeader()
  }

  /** A standby must not call the transport: with providerSession 'leader', or the provider's own session 'leader'. */
  isStandby(): boolean {
    if (this.#leader) return !this.#leader.isLeader()
    return this.transport.session === 'leader' && this.transport.isLeader?.() === false
  }

  async #up(): Promise<void> {
    if (this.#running || !this.#start) return
    this.#running = true
    await this.#start()
  }

  async #down(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    await this.transport.stop()
  }
}
