/**
 * A wall clock stepped between two syncs with the backend's clock (NTP, an operator) must not move
 * lease times: elapsed time between syncs is measured on the monotonic clock. Before, `Date.now()`
 * carried the step, and a message admitted just after a +120 s step got a lease 120 s too long (a
 * −120 s step, one that had already expired). The wall clock stepped is vitest's fake Date of this
 * process (timers stay real), never the host clock; the backend keeps a clock of its own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { fast, recordId, useBots } from './helpers.js'

const bots = useBots()
afterEach(() => vi.useRealTimers())

const STEP_MS = 120_000
const LEASE_MS = 60_000
/** Far above the few ms between the admission and the read of the server's clock, far below the step. */
const MARGIN_MS = 10_000

describe('a wall clock step between syncs', () => {
  for (const step of [STEP_MS, -STEP_MS]) {
    it(`${step > 0 ? '+' : '−'}120 s: a lease taken after it still ends leaseMs after now on the backend's clock`, async () => {
      // The server's clock: monotonic, untouched by the step of this process's wall clock.
      const serverNow = () => performance.timeOrigin + performance.now()
      const backend = new MemoryDurability({ now: serverNow })
      const provider = new MockProvider()
      // The bot's wall clock is this fake one from its start, running with real time until stepped.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
      let release!: () => void
      const holding = new Promise<void>((resolve) => (release = resolve))
      const t = await bots.start({
        provider,
        // No sweep between the step and the admission: the engine's offset to the server stays the one measured at start.
        durability: fast({ backend, pollMs: '1h', inbox: { leaseMs: LEASE_MS } }),
        setup: (bot) => bot.when(TEXT, () => holding),
      })
      vi.setSystemTime(Date.now() + step)
      await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
      const record = (await t.bot.durability!.inbox.get(recordId('m1'))) as InboxRecord
      const expected = serverNow() + LEASE_MS
      expect(record.lease!.expiresAt).toBeGreaterThan(expected - MARGIN_MS)
      // Whole milliseconds: the lease is rounded, the server's time read here is not.
      expect(record.lease!.expiresAt).toBeLessThanOrEqual(expected + 1)
      vi.useRealTimers()
      release()
      await t.bot.idle()
    })
  }
})
