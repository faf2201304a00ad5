/**
 * The CLI's changes are compare-and-sets: when a running bot changes a record between the CLI's
 * read and its write, the bot's change stands and the CLI reports CONCURRENT_CHANGE for that record
 * (and carries on with the rest). The race is forced in-process, by a journal wrapper that lets
 * "the bot" write right before the CLI's write reaches the backend; the binary's exit code for
 * such an outcome is covered in operations.test.ts (a record that could not be changed exits 1).
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import type { Journal } from '../../src/core/durability/journal/backend.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { outcomeOf } from '../../src/operator/bulk.js'
import { applyReplay, planReplay } from '../../src/operator/replay.js'

/** A journal whose first operator write is preceded by a bot's write to the same record. */
function racedBy(journal: Journal, botWrite: (journal: Journal) => Promise<void>): Journal {
  let raced = false
  return {
    scopeId: journal.scopeId,
    read: (kind, ids) => journal.read(kind, ids),
    due: (kind, until, limit) => journal.due(kind, until, limit),
    list: (kind, query) => journal.list(kind, query),
    count: (kind) => journal.count(kind),
    purge: (kind, state, olderThan, limit) => journal.purge(kind, state, olderThan, limit),
    countOlder: (kind, state, olderThan, limit) => journal.countOlder(kind, state, olderThan, limit),
    write: async (name, writes) => {
      if (typeof name === 'string' && name.startsWith('operator.') && !raced) {
        raced = true
        await botWrite(journal)
      }
      return journal.write(name, writes)
    },
  }
}

describe('a record a running bot changed meanwhile', () => {
  it('is not overwritten: CONCURRENT_CHANGE for it, the others are replayed', async () => {
    const backend = new MemoryDurability()
    await backend.start()
    const journal = backend.journal('acme/prod/support/default')
    const dead = (id: string) => inboxRecord(id, { state: 'dead', attempts: 5, updatedAt: 10 })
    await journal.write(
      'inbox.admit',
      [dead('a'), dead('b')].map((record) => ({ kind: 'inbox' as const, record, expectVersion: 0 })),
    )
    const plan = await planReplay(journal, { states: ['dead'], filters: {} })
    expect(plan.ids).toEqual(['a', 'b'])
    // The bot gets to "a" first (say, its own sweeper replayed it and finished it).
    const raced = racedBy(journal, async (inner) => {
      const [current] = await inner.read('inbox', ['a'])
      await inner.write('inbox.complete', [
        { kind: 'inbox', record: { ...current!.record, state: 'done', updatedAt: 20 }, expectVersion: current!.version },
      ])
    })
    const items = await applyReplay(raced, plan, { at: 30, by: 'test', reason: 'race' })
    const outcome = outcomeOf('replay', plan, items, { reason: 'race' })
    expect(outcome).toMatchObject({ attempted: 2, succeeded: 1, failed: 1 })
    expect(items[0]).toMatchObject({ id: 'a', ok: false, error: { code: 'CONCURRENT_CHANGE' } })
    const [a, b] = await journal.read('inbox', ['a', 'b'])
    expect((a!.record as InboxRecord).state).toBe('done')
    expect((a!.record as InboxRecord).audit).toBeUndefined()
    expect((b!.record as InboxRecord).state).toBe('pending')
    await backend.stop()
  })
})
