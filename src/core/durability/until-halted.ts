/**
 * A crashed test backend's calls never settle: the engines' start(), stop() and idle() race their
 * work against the backend's halt so they end instead of waiting on it forever.
 */
import type { DurabilityBackend } from './journal/backend.js'

/**
 * `work`, or, once the backend halted for good (`whenHalted`: a crashed test backend whose calls never
 * settle), its reason as a rejection, or a resolution with `'resolve'`: a crashed bot's start() and
 * stop() end and its idle() fails with the crash, where they would wait on the dead backend forever.
 */
export function untilHalted(backend: DurabilityBackend, work: Promise<void>, onHalt: 'reject' | 'resolve'): Promise<void> {
  const halted = backend.whenHalted?.()
  if (!halted) return work
  return Promise.race([
    work,
    halted.then((reason) => {
      if (onHalt === 'reject') throw reason
    }),
  ])
}
