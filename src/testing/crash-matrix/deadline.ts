/** Races a promise against a time limit and an abort signal, so a hung step cannot hang its caller. */

export type Bounded<T> = { done: true; value: T } | { done: false; reason: 'timeout' | 'aborted' }

/**
 * Settles with `work`'s value, or with the reason it was given up on. The timer is not unref()ed on
 * purpose: while a case waits on something that will never settle, the timer is what keeps the
 * process alive long enough to report it (an empty event loop would exit 13 without a word).
 */
export async function within<T>(work: Promise<T>, limitMs: number, signal?: AbortSignal): Promise<Bounded<T>> {
  if (signal?.aborted) return { done: false, reason: 'aborted' }
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const givenUp = new Promise<Bounded<T>>((resolve) => {
    timer = setTimeout(() => resolve({ done: false, reason: 'timeout' }), limitMs)
    onAbort = () => resolve({ done: false, reason: 'aborted' })
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), givenUp])
  } finally {
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
  }
}
