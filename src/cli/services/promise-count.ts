/**
 * Promises created while some work runs, counted with an async hook. A hook that sees promises
 * makes V8 call into Node for every promise, which slows promise-heavy code by a large factor, so
 * `bench` counts in a short pass of its own after the timed run, never during it.
 */
import { createHook } from 'node:async_hooks'

/** Promises created (PROMISE async resources initialised) while `work` ran. */
export async function countPromises(work: () => Promise<void>): Promise<number> {
  let promises = 0
  const hook = createHook({
    init(_asyncId, type) {
      if (type === 'PROMISE') promises++
    },
  })
  hook.enable()
  try {
    await work()
  } finally {
    hook.disable()
  }
  return promises
}
