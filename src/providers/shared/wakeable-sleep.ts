/**
 * A wait a provider's loop can cut short: `sleep(ms)` resolves after `ms`, or at once when `wake()`
 * is called (a stop, new mail, a dropped connection). Its timer never keeps the process alive.
 */
export class WakeableSleep {
  #wake: (() => void) | undefined

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#wake = undefined
        resolve()
      }
      const timer = setTimeout(done, ms)
      timer.unref()
      this.#wake = done
    })
  }

  /** Ends the sleep in progress, if any. */
  wake(): void {
    this.#wake?.()
  }
}
