/**
 * MemoryStore keeps a bounded message log per chat, as the SQLite and Redis stores do: a busy
 * chat's log must not grow a long-running process without end.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, MEMORY_STORE_MESSAGE_LOG_MAX, MemoryStore, type MessageLogEntry } from '../../src/core/index.js'

const entry = (n: number, chatId = 'c1'): MessageLogEntry => ({
  direction: n % 2 ? 'out' : 'in',
  chatId,
  messageId: `w${n}`,
  text: `t${n}`,
  at: n,
  ref: null,
})

describe('MemoryStore message log', () => {
  it('keeps the newest messageLogMax entries per chat, oldest first', async () => {
    const store = new MemoryStore({ messageLogMax: 3 })
    for (let n = 1; n <= 5; n++) await store.appendLog('bot-a', entry(n))
    await store.appendLog('bot-a', entry(9, 'c2'))
    expect(await store.listLog('bot-a', 'c1', 10)).toEqual([entry(3), entry(4), entry(5)])
    expect(await store.listLog('bot-a', 'c1', 2)).toEqual([entry(4), entry(5)])
    expect(await store.listLog('bot-a', 'c2', 10)).toEqual([entry(9, 'c2')])
    expect(await store.listLog('bot-b', 'c1', 10)).toEqual([])
  })

  it('keeps 1000 by default, and every entry with 0', async () => {
    const bounded = new MemoryStore()
    const unbounded = new MemoryStore({ messageLogMax: 0 })
    for (let n = 1; n <= MEMORY_STORE_MESSAGE_LOG_MAX + 5; n++) {
      await bounded.appendLog('bot', entry(n))
      await unbounded.appendLog('bot', entry(n))
    }
    const kept = await bounded.listLog('bot', 'c1', 10_000)
    expect(kept).toHaveLength(MEMORY_STORE_MESSAGE_LOG_MAX)
    expect(kept[0]).toEqual(entry(6))
    expect(await unbounded.listLog('bot', 'c1', 10_000)).toHaveLength(MEMORY_STORE_MESSAGE_LOG_MAX + 5)
  })

  it('refuses a messageLogMax that is not a whole number >= 0', () => {
    expect(() => new MemoryStore({ messageLogMax: -1 })).toThrow(ConfigError)
    expect(() => new MemoryStore({ messageLogMax: 1.5 })).toThrow(/messageLogMax must be a whole number >= 0/)
  })
})
