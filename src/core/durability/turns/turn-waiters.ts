/**
 * Waiters of this process for chat turns. A release here wakes the local waiters of that chat at
 * once, so they need not wait for their next look at the journal to see the turn free.
 */
export class TurnWaiters {
  readonly #waiters = new Map<string, Set<() => void>>()

  /** Sleeps `ms`, or less when this process releases a turn of the chat. */
  wait(chatId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(chatId) ?? new Set()
      this.#waiters.set(chatId, waiters)
      const done = () => {
        clearTimeout(timer)
        waiters.delete(done)
        if (waiters.size === 0 && this.#waiters.get(chatId) === waiters) this.#waiters.delete(chatId)
        resolve()
      }
      const timer = setTimeout(done, ms)
      waiters.add(done)
    })
  }

  /** Wakes every waiter of the chat. */
  wake(chatId: string): void {
    for (const wake of this.#waiters.get(chatId) ?? []) wake()
  }

  /** Wakes every waiter of every chat. */
  wakeAll(): void {
    for (const chatId of [...this.#waiters.keys()]) this.wake(chatId)
  }
}
