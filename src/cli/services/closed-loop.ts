/** What `bench`'s runs are measured with: a closed loop of clients, percentiles and rounding. */

/** `count` operations shared by `concurrency` clients, each starting its next one when its last finished. */
export async function closedLoop(concurrency: number, count: number, operate: (n: number, client: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      while (next < count) await operate(next++, client)
    }),
  )
}

/** The value at `fraction` (0..1) of an ascending list; 0 for an empty one. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}
