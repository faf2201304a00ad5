/**
 * A backend whose journals pass every call through unchanged, except `write`, which goes through
 * `around`: the test kits use it to observe or mark journal writes of a real backend.
 */
import type { DurabilityBackend, Journal, JournalWrite, JournalWriteResult } from '../core/durability/journal/backend.js'
import type { WriteLabel } from '../core/durability/journal/crash-points.js'

export type AroundWrite = (
  name: WriteLabel,
  writes: readonly JournalWrite[],
  write: () => Promise<JournalWriteResult[]>,
) => Promise<JournalWriteResult[]>

export function aroundJournalWrites(inner: DurabilityBackend, around: AroundWrite): DurabilityBackend {
  return {
    kind: inner.kind,
    shared: inner.shared,
    scoped: inner.scoped,
    start: () => inner.start(),
    stop: () => inner.stop(),
    now: () => inner.now(),
    scopes: () => inner.scopes(),
    journal(scopeId: string): Journal {
      const journal = inner.journal(scopeId)
      return {
        scopeId,
        read: (kind, ids) => journal.read(kind, ids),
        due: (kind, until, limit) => journal.due(kind, until, limit),
        list: (kind, query) => journal.list(kind, query),
        count: (kind) => journal.count(kind),
        purge: (kind, state, olderThan, limit) => journal.purge(kind, state, olderThan, limit),
        countOlder: (kind, state, olderThan, limit) => journal.countOlder(kind, state, olderThan, limit),
        write: (name, writes) => around(name, writes, () => journal.write(name, writes)),
      }
    },
  }
}
