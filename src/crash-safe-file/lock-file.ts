/**
 * The pid lock of a journal (I14): `<file>.lock` names the one process that may write the journal.
 * A second live process is refused with the holder's pid, a lock left by a dead process is taken
 * over, and a second open of the same file in this process is refused until the first releases.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { resolve } from 'node:path'
import { JournalLockedError } from '../core/errors/errors.js'
import { errorCode, FILE_MODE, type FileHandle, type FileSystem } from './fs.js'

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number
  host: string
  /** When the holder took the lock (ms since the epoch). */
  takenAt: number
}

/** A lock this process holds. */
export interface HeldLock {
  /** The lock file (`<file>.lock`). */
  readonly path: string
  /** Removes the lock file (if it is still ours) and forgets the file in this process. Idempotent. */
  release(): Promise<void>
}

/** How many times `acquireLock` retries when other processes keep creating and removing the lock. */
export const LOCK_ATTEMPTS_MAX = 5

/** Files locked by this process, shared by every copy of this module loaded in it. */
const held: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for('botmesh.file-locks')] ??= new Set<string>()) as Set<string>

/** The lock file of a journal file. */
export function lockPathOf(file: string): string {
  return `${file}.lock`
}

/** Whether this process holds the lock of `file` (a writable open that was not closed yet). */
export function isLockedInProcess(file: string): boolean {
  return held.has(resolve(file))
}

/**
 * Takes the lock of `file`. Rejects with `JournalLockedError` naming the holder's pid when a live
 * process holds it, or when this process already does (until `release()`).
 */
export async function acquireLock(fs: FileSystem, file: string): Promise<HeldLock> {
  const key = resolve(file)
  if (held.has(key)) {
    throw new JournalLockedError(file, process.pid, `${file} is already open in this process; close() it before opening it again`)
  }
  held.add(key) // reserved before the first await, so two opens in one tick cannot both pass
  const lockPath = lockPathOf(file)
  const me: LockHolder = { pid: process.pid, host: hostname(), takenAt: Date.now() }
  const content = JSON.stringify(me)
  try {
    for (let attempt = 0; attempt < LOCK_ATTEMPTS_MAX; attempt++) {
      if (await createLockFile(fs, lockPath, content)) return heldLock(fs, key, lockPath, content)
      const found = await readLockFile(fs, lockPath)
      if (found === undefined) continue // released between our create and our read: try again
      const holder = parseHolder(found)
      if (holder && isLive(holder)) throw new JournalLockedError(file, holder.pid)
      await takeOver(fs, lockPath, found)
    }
    throw new JournalLockedError(
      file,
      undefined,
      `${file}: could not take ${lockPath} in ${LOCK_ATTEMPTS_MAX} attempts; other processes keep taking it`,
    )
  } catch (error) {
    held.delete(key)
    throw error
  }
}

/** The live process holding `file`'s lock, if any (read-only opens ask this; nothing is changed). */
export async function lockHolderOf(fs: FileSystem, file: string): Promise<LockHolder | undefined> {
  const found = await readLockFile(fs, lockPathOf(file))
  const holder = found === undefined ? undefined : parseHolder(found)
  return holder && (isLive(holder) || (holder.pid === process.pid && isLockedInProcess(file))) ? holder : undefined
}

/** Creates the lock file complete or not at all: a private temp, then link() to the name (I14). */
async function createLockFile(fs: FileSystem, lockPath: string, content: string): Promise<boolean> {
  const handle = await createExclusiveFile(fs, lockPath, content)
  await handle?.close()
  return handle !== undefined
}

/**
 * Creates `path` with `content`, complete or not at all (a private temp, then link() to the name),
 * and returns a handle on the new file, kept open; undefined when `path` exists. A write through
 * the handle touches the file's mtime wherever it is linked (the events journals' mutex heartbeat).
 */
export async function createExclusiveFile(fs: FileSystem, path: string, content: string): Promise<FileHandle | undefined> {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`
  const handle = await fs.open(temp, 'exclusive', FILE_MODE)
  try {
    await handle.write(Buffer.from(content), 0)
    await fs.link(temp, path)
    return handle
  } catch (error) {
    await handle.close().catch(() => {})
    if (errorCode(error) === 'EEXIST') return undefined
    throw error
  } finally {
    await fs.unlink(temp).catch(() => {})
  }
}

/**
 * Removes a stale lock. It is first renamed aside, which only one process can do to one file, and
 * removed only if it is still the stale one we read; a fresh lock moved by mistake is put back.
 */
export async function takeOver(fs: FileSystem, lockPath: string, stale: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    await fs.rename(lockPath, aside)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return
    throw error
  }
  if ((await readLockFile(fs, aside)) !== stale) await fs.link(aside, lockPath).catch(() => {})
  await fs.unlink(aside).catch(() => {})
}

function heldLock(fs: FileSystem, key: string, lockPath: string, content: string): HeldLock {
  let released = false
  return {
    path: lockPath,
    async release() {
      if (released) return
      released = true
      try {
        // Only our own lock is removed: an operator may have removed it and another process taken it.
        if ((await readLockFile(fs, lockPath)) === content) await fs.unlink(lockPath)
      } finally {
        held.delete(key)
      }
    },
  }
}

/** A lock file's content; undefined when there is none. */
export async function readLockFile(fs: FileSystem, lockPath: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(lockPath)).toString('utf8')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
}

/** A holder from a lock file's content; undefined for content no botmesh process writes (stale). */
export function parseHolder(content: string): LockHolder | undefined {
  try {
    const value = JSON.parse(content) as Partial<LockHolder>
    if (Number.isSafeInteger(value.pid) && value.pid! > 0 && typeof value.host === 'string') {
      return { pid: value.pid!, host: value.host, takenAt: Number(value.takenAt) || 0 }
    }
  } catch {
    // not JSON: not a lock any botmesh process wrote
  }
  return undefined
}

/**
 * Whether a holder may still be running. Another host cannot be checked: it counts as live. This
 * pid is not live here: the registry refused a second open already, so the file is a leftover of
 * an earlier process that had the same pid (a container restarted as pid 1).
 */
export function isLive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true
  if (holder.pid === process.pid) return false
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}
