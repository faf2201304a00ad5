/**
 * Long polling. An update is confirmed to Telegram (by asking for the next offset) only after the
 * inbox journaled it: a crash or a journal that refuses it leaves it unconfirmed, and the next
 * `getUpdates` gets it again. One loop per provider, `stop` awaits the call in flight.
 */
import type { Api } from 'grammy'
import type { InboundEvent } from '../../core/provider/provider.js'
import { apiSignal } from './client.js'
import { TELEGRAM_LIMITS } from './limits.js'
import { inboundOf, type TelegramUpdate } from './updates.js'

/** What the poller needs from its provider. */
export interface PollingDeps {
  api: Api
  sink: (event: InboundEvent, update: TelegramUpdate) => Promise<void>
  onError: (error: unknown) => void
  pollTimeoutSeconds: number
}

/** A running long-polling loop. */
export class TelegramPoller {
  #abort = new AbortController()
  #loop: Promise<void> | undefined
  #offset: number | undefined

  constructor(private readonly deps: PollingDeps) {}

  /** Starts the loop (idempotent). */
  start(): void {
    this.#loop ??= this.#run()
  }

  /** Stops the loop and waits for the call in flight (aborted) to end. Idempotent. */
  async stop(): Promise<void> {
    this.#abort.abort()
    await this.#loop
  }

  async #run(): Promise<void> {
    let failures = 0
    const signal = this.#abort.signal
    while (!signal.aborted) {
      try {
        const updates = (await this.deps.api.getUpdates(
          { offset: this.#offset, timeout: this.deps.pollTimeoutSeconds, limit: TELEGRAM_LIMITS.pollBatchMax },
          apiSignal(signal),
        )) as TelegramUpdate[]
        for (const update of updates) {
          if (signal.aborted) return
          const event = inboundOf(update)
          // The offset moves past an update only once it is journaled (or is one a bot ignores).
          if (event) await this.deps.sink(event, update)
          this.#offset = update.update_id + 1
        }
        failures = 0
      } catch (error) {
        if (signal.aborted) return
        this.deps.onError(error)
        failures++
        await pause(Math.min(TELEGRAM_LIMITS.pollBackoffMaxMs, TELEGRAM_LIMITS.pollBackoffBaseMs * 2 ** Math.min(failures, 16)), signal)
      }
    }
  }
}

/** Waits `ms`, or less if `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    timer.unref()
    signal.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}
