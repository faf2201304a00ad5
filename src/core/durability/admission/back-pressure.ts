/**
 * Back-pressure: a process holding LIMITS.inFlightMax messages and sends in flight acknowledges an
 * admitted message (the provider's sink resolves) only once there is room again, and its sweeper
 * claims no more inbound records meanwhile. The message is journaled first, as always, so nothing
 * is lost: a channel delivering faster than the handlers run waits for its acknowledgement instead
 * of the process holding every admitted message in memory.
 */
import type { InFlight } from './in-flight.js'
import { LIMITS } from '../limits.js'

export class BackPressure {
  /** Whether the operator was told that intake waits, and not yet that it has room again. */
  #slowed = false

  /** @param calm In-flight work under which an episode is over (LIMITS.inFlightCalm). */
  constructor(
    private readonly inFlight: InFlight,
    private readonly warn: (message: string) => void,
    private readonly calm: number = LIMITS.inFlightCalm,
  ) {}

  /** Whether the process may take on more work now. */
  get hasRoom(): boolean {
    return this.inFlight.hasRoom
  }

  /** `admitted` as it is while there is room; else resolving once it settled and there is room again. */
  acknowledge(admitted: Promise<void>): Promise<void> {
    if (this.inFlight.hasRoom) return admitted
    if (!this.#slowed) this.#tell()
    return admitted.then(() => this.inFlight.room())
  }

  /**
   * Once per episode: when intake starts to wait, and when the work in flight fell under `calm`.
   * Hovering at the limit, intake waits and goes on many times a second: that is one episode.
   */
  #tell(): void {
    this.#slowed = true
    this.warn(
      `durability: ${LIMITS.inFlightMax} messages and sends are in flight (LIMITS.inFlightMax); ` +
        'new messages are journaled but acknowledged to the channel only as earlier ones finish',
    )
    void this.inFlight.below(this.calm).then(() => {
      this.#slowed = false
      this.warn(
        `durability: in-flight work is down to under ${this.calm} (LIMITS.inFlightCalm); new messages are acknowledged at once again`,
      )
    })
  }
}
