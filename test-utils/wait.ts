/**
 * Tests wait on state, never on sleeps: `waitFor` polls a predicate until it holds (a truthy value)
 * or the timeout passes, and then fails with what it last saw.
 */

export interface WaitOptions {
  /** @default 5000 */
  timeoutMs?: number
  /** @default 5 */
  intervalMs?: number
  /** Says what was awaited, in the failure message. */
  message?: string
}

/** Resolves to the predicate's first truthy value; rejects after `timeoutMs` with the last value seen. */
export async function waitFor<T>(predicate: () => T | Promise<T>, options: WaitOptions | number = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 5000, intervalMs = 5, message } = typeof options === 'number' ? { timeoutMs: options } : options
  const deadline = Date.now() + timeoutMs
  let last: unknown
  let lastError: unknown
  for (;;) {
    try {
      const value = await predicate()
      if (value) return value as NonNullable<T>
      last = value
      lastError = undefined
    } catch (error) {
      lastError = error
    }
    if (Date.now() > deadline) {
      const seen =
        lastError !== undefined
          ? `threw ${lastError instanceof Error ? lastError.message : String(lastError)}`
          : `last value ${safeJson(last)}`
      throw new Error(`waitFor: ${message ?? predicate.toString().slice(0, 200)} did not hold within ${timeoutMs} ms (${seen})`)
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/** A promise with its resolve and reject, for gates that a test opens. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** A promise that never settles (a handler frozen for good). */
export function never<T = never>(): Promise<T> {
  return new Promise<T>(() => {})
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** A hang detector for work that must settle: far above what settling takes on a loaded machine. */
export const SETTLE_LIMIT_MS = 20_000

/** `work`'s outcome, or a failure naming what did not settle within `limitMs`. */
export async function settles<T>(what: string, work: Promise<T>, limitMs: number = SETTLE_LIMIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${limitMs} ms`)), limitMs)
  })
  try {
    return await Promise.race([work, hung])
  } finally {
    clearTimeout(timer)
  }
}
