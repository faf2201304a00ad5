/**
 * The engine's view of a journal: every failure of a journal call comes out as a
 * `JournalUnavailableError` (the backend's own error as its `cause`). The runtime tells "the journal
 * could not record this" from a handler's or a provider's failure by that type alone, and a message
 * whose effects could not be recorded is released for a replay instead of being marked done.
 */
import { JournalUnavailableError } from '../../errors/errors.js'
import type { Journal } from './backend.js'
import { describeLabel } from './crash-points.js'

export function guardedJournal(journal: Journal): Journal {
  // The failure is put into words only when it happens: reads and writes run several times per message.
  const fail = (error: unknown, verb: string, object: string): never => {
    throw journalFailure(journal.scopeId, error, `${verb} ${object}`)
  }
  return {
    scopeId: journal.scopeId,
    read: (kind, ids) => journal.read(kind, ids).catch((error) => fail(error, 'read', `${kind} records`)),
    write: (name, writes) => journal.write(name, writes).catch((error) => fail(error, 'write', describeLabel(name))),
    due: (kind, until, limit) => journal.due(kind, until, limit).catch((error) => fail(error, 'find due', `${kind} records`)),
    list: (kind, query) => journal.list(kind, query).catch((error) => fail(error, 'list', `${kind} records`)),
    count: (kind) => journal.count(kind).catch((error) => fail(error, 'count', `${kind} records`)),
    purge: (kind, state, olderThan, limit) =>
      journal.purge(kind, state, olderThan, limit).catch((error) => fail(error, 'purge', `${kind} records`)),
    countOlder: (kind, state, olderThan, limit) =>
      journal.countOlder(kind, state, olderThan, limit).catch((error) => fail(error, 'count', `${kind} records`)),
  }
}

/** A failure of the journal of `scopeId` doing `what`, as a `JournalUnavailableError` with the backend's error as its cause. */
export function journalFailure(scopeId: string, error: unknown, what: string): JournalUnavailableError {
  if (error instanceof JournalUnavailableError) return error
  const detail = error instanceof Error ? error.message : String(error)
  return new JournalUnavailableError(`the journal of scope "${scopeId}" could not ${what}: ${detail}`, error)
}
