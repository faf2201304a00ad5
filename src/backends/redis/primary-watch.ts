/**
 * Behind Sentinel the server botmesh's client is on changes under it: a failover promotes a replica
 * and the client follows (sentinel.ts). The checks a start made (server-checks.ts: eviction,
 * persistence) were about the old primary, so each time the client is ready on another server
 * they run again on the new one: its warnings are said again, and a primary a start would have
 * refused (`requirePersistence`, an evicting policy) is refused now: every call fails as retryable
 * (`JOURNAL_UNAVAILABLE`, `STORE_UNAVAILABLE`), so a message is refused and delivered again rather
 * than admitted to a journal that server would lose, until a read of its settings (at most every
 * `REDIS_LIMITS.refusedPrimaryRecheckMs`) finds them fixed.
 */
import type { Redis } from 'ioredis'
import { ConfigError } from '../../core/errors/errors.js'
import { unavailableError, type FailureRole } from '../common/failure-role.js'
import { REDIS_LIMITS } from './limits.js'

/** What the watch needs of its connection. */
export interface PrimaryWatchOptions {
  /** The connection's target, for messages. */
  target: string
  info(message: string): void
  /** The start's checks, on the server the client is on now (server-checks.ts); throws a ConfigError to refuse it. */
  check(): Promise<void>
}

/** Which primary one client is on, and whether the checks refused it. */
export class PrimaryWatch {
  #address: string
  #refusal: ConfigError | undefined
  #checkedAt = 0
  #checking: Promise<void> | undefined

  /** Starts watching a client that is ready on the primary a start checked. */
  constructor(
    private readonly client: Redis,
    private readonly options: PrimaryWatchOptions,
  ) {
    this.#address = addressOf(client)
    client.on('ready', () => this.#onReady())
  }

  /** The primary's `host:port` as the client reached it. */
  get address(): string {
    return this.#address
  }

  /** Throws the role's retryable error while the primary is refused (and reads its settings again when due). */
  assertAccepted(role: FailureRole): void {
    const refusal = this.#refusal
    if (!refusal) return
    if (Date.now() - this.#checkedAt >= REDIS_LIMITS.refusedPrimaryRecheckMs) void this.#check()
    throw unavailableError(role, `the primary Sentinel promoted (${this.#address}) is refused: ${refusal.message}`, refusal)
  }

  #onReady(): void {
    const address = addressOf(this.client)
    if (address === this.#address) return
    const from = this.#address
    this.#address = address
    this.options.info(`botmesh: ${this.options.target}: the primary moved from ${from} to ${address} (a failover); checking its settings`)
    void this.#check()
  }

  /** One check at a time; a server that cannot be read keeps what the last check found. */
  #check(): Promise<void> {
    this.#checking ??= this.options
      .check()
      .then(
        () => void (this.#refusal = undefined),
        (error: unknown) => {
          if (error instanceof ConfigError) this.#refusal = error
        },
      )
      .finally(() => {
        this.#checkedAt = Date.now()
        this.#checking = undefined
      })
    return this.#checking
  }
}

/** `host:port` of the server a client's socket is connected to. */
function addressOf(client: Redis): string {
  const stream = client.stream as { remoteAddress?: string; remotePort?: number } | undefined
  return `${stream?.remoteAddress ?? client.options.host ?? 'localhost'}:${stream?.remotePort ?? client.options.port ?? 6379}`
}
