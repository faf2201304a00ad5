/**
 * Why an open journal refuses a call: it is closed, broken by a commit whose outcome is unknown, or
 * open read-only. A read-only refusal names the live process holding the lock, if there is one, so
 * the caller knows where to make the change instead (I15).
 */
import { JournalClosedError, JournalLockedError, JournalReadOnlyError, JournalUnavailableError } from '../core/errors/errors.js'
import type { FileSystem } from './fs.js'
import { lockHolderOf } from './lock-file.js'

/** What the journal is, as far as a refusal cares. */
export interface RefusedBecause {
  closed: boolean
  /** Why the journal broke, if it did. */
  broken: string | undefined
}

/** Rejects a call to a closed, broken or read-only journal. */
export async function refuseCall(fs: FileSystem, path: string, because: RefusedBecause): Promise<never> {
  if (because.closed) throw new JournalClosedError(path)
  if (because.broken) throw new JournalUnavailableError(`${path}: ${because.broken}; close and reopen the journal`)
  const holder = await lockHolderOf(fs, path)
  if (!holder) throw new JournalReadOnlyError(path)
  throw new JournalLockedError(
    path,
    holder.pid,
    `${path} is held by live process ${holder.pid} and is open here read-only: stop that process, or make the change through it`,
  )
}
