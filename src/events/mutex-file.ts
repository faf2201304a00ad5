/**
 * The cross-process mutex of an events journal file (`<file>.mutex`): every operation of a
 * `SharedFileEventJournal` runs holding it, so processes on one host take turns on the file.
 *
 * - Taking it is an exclusive create of the file, complete or not at all (lock-file.ts's link()).
 *   Inside one process the callers queue first, so the file is only contended between processes.
 * - The holder refreshes the file's mtime every `heartbeatMs` while it holds it.
 * - A mutex whose holder is dead (its pid no longer runs on this host) is broken at once; one this
 *   process has seen unrefreshed (the same content and mtime) for `staleLockMs`, on its monotonic
 *   clock, is treated as abandoned by a stalled holder and broken too. The mtime's age on the wall
 *   clock is never used: after a step of the wall clock (this process's or the host's) every live
 *   mutex would look minutes old, be broken, and two processes would write the file at once.
 *   Nothing is ever killed.
 * - Breaking happens under a second lock (`<file>.mutex.break`), and only if the mutex still holds
 *   what was judged stale: two processes cannot both break one mutex and take it. What is left is
 *   a window of microseconds, when a stalled holder wakes up exactly as its mutex is broken; a
 *   holder checks the mutex is still its own (`stillHeld`) right before it writes, to keep it small.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { resolve } from 'node:path'
import { JournalUnavailableError } from '../core/errors/errors.js'
import { errorCode, type FileHandle, type FileStat, type FileSystem } from '../crash-safe-file/fs.js'
import { createExclusiveFile, isLive, parseHolder, readLockFile, takeOver } from '../crash-safe-file/lock-file.js'
import { EVENTS_LIMITS } from './limits.js'

/** How a mutex is held and judged. */
export interface MutexOptions {
  fs: FileSystem
  /** A holder that has not refreshed the mutex for this long is treated as abandoned. */
  staleLockMs: number
  /** How often a holder refreshes the mutex's mtime. */
  heartbeatMs: number
  /** Told whenever this process breaks a mutex left by a dead or stalled holder. */
  onBroken?: (info: MutexBreak) => void
}

/** A mutex this process broke. */
export interface MutexBreak {
  /** The mutex file. */
  file: string
  /** The holder it named (undefined when its content was not a holder's). */
  pid: number | undefined
  /** The host the holder named (undefined when its content was not a holder's). */
  host: string | undefined
  /** `dead`: its process no longer runs; `stalled`: this process saw it unrefreshed for `staleLockMs`. */
  reason: 'dead' | 'stalled'
  /** How long this process saw it unrefreshed (0 when it was broken as dead on first sight). */
  ageMs: number
}

/** A mutex this process holds. */
export interface HeldMutex {
  /** Whether the mutex file is still this holder's (false once a stalled holder's mutex was broken). */
  stillHeld(): Promise<boolean>
  /** Removes the mutex if it is still ours and lets the next caller of this process in. Idempotent. */
  release(): Promise<void>
}

/** The mutex of a journal file. */
export function mutexPathOf(file: string): string {
  return `${file}.mutex`
}

/** Callers of this process waiting for each file's mutex, shared by every copy of this module loaded in it. */
const queues: Map<string, Promise<void>> = ((globalThis as Record<symbol, unknown>)[Symbol.for('botmesh.events-mutex-queues')] ??= new Map<
  string,
  Promise<void>
>()) as Map<string, Promise<void>>

/** Runs `task` holding the mutex of `file`. */
export async function withMutex<T>(file: string, options: MutexOptions, task: (mutex: HeldMutex) => Promise<T>): Promise<T> {
  const mutex = await acquireMutex(file, options)
  try {
    return await task(mutex)
  } finally {
    await mutex.release()
  }
}

/**
 * Takes the mutex of `file`, waiting for this process's earlier callers and for a live holder.
 * Rejects with `JournalUnavailableError` when a live holder keeps it fresh for longer than
 * `mutexWaitStaleLocks × staleLockMs` (something holds it without ever letting go).
 */
export async function acquireMutex(file: string, options: MutexOptions): Promise<HeldMutex> {
  const key = resolve(file)
  const previous = queues.get(key) ?? Promise.resolve()
  let leave!: () => void
  const turn = new Promise<void>((done) => (leave = done))
  const tail = previous.then(() => turn)
  queues.set(key, tail)
  const letNextIn = () => {
    leave()
    if (queues.get(key) === tail) queues.delete(key)
  }
  await previous
  try {
    const handle = await takeFileMutex(file, options)
    return heldMutex(file, options, handle, letNextIn)
  } catch (error) {
    letNextIn()
    throw error
  }
}

async function takeFileMutex(file: string, options: MutexOptions): Promise<{ handle: FileHandle; content: string }> {
  const { fs, staleLockMs } = options
  const path = mutexPathOf(file)
  const content = JSON.stringify({ pid: process.pid, host: hostname(), takenAt: Date.now(), nonce: randomBytes(6).toString('hex') })
  const waitMs = staleLockMs * EVENTS_LIMITS.mutexWaitStaleLocks
  const deadline = performance.now() + waitMs
  let pauseMs: number = EVENTS_LIMITS.mutexRetryFirstMs
  let holderPid: number | undefined
  // Bounded by the deadline: each turn either takes the mutex, breaks a stale one, or waits.
  for (;;) {
    const handle = await createExclusiveFile(fs, path, content)
    if (handle) {
      sightings.delete(path)
      return { handle, content }
    }
    const found = await inspect(fs, path)
    if (found) {
      holderPid = found.holder?.pid
      const verdict = judge(found, staleLockMs)
      if (verdict) {
        await breakMutex(fs, path, found, verdict, options, content)
        continue
      }
    }
    if (performance.now() > deadline) {
      throw new JournalUnavailableError(
        `${file}: could not take ${path} within ${waitMs} ms: ` +
          `process ${holderPid ?? 'unknown'} holds it and keeps it fresh; if that process hangs, stop it`,
      )
    }
    if (found) {
      await new Promise((done) => setTimeout(done, pauseMs * (0.5 + Math.random())))
      pauseMs = Math.min(pauseMs * 2, EVENTS_LIMITS.mutexRetryMaxMs)
    }
  }
}

/** What a mutex file says and when it was last refreshed; undefined when it vanished meanwhile. */
interface FoundMutex {
  path: string
  content: string
  holder: ReturnType<typeof parseHolder>
  stat: FileStat
}

async function inspect(fs: FileSystem, path: string): Promise<FoundMutex | undefined> {
  const stat = await fs.stat(path)
  const content = await readLockFile(fs, path)
  if (!stat || content === undefined) return undefined
  return { path, content, holder: parseHolder(content), stat }
}

/** Why a found mutex may be broken: its holder is dead, or stalled; undefined while it is live. */
function judge(found: FoundMutex, staleLockMs: number): 'dead' | 'stalled' | undefined {
  const { holder } = found
  // isLive() says no for this pid: our own callers queue in process, so a mutex naming us is a leftover.
  if (holder && holder.host === hostname() && !isLive(holder)) return 'dead'
  return unrefreshedForMs(found) >= staleLockMs ? 'stalled' : undefined
}

/** When this process first saw each mutex file as it is now (content and mtime), on the monotonic clock. */
const sightings = new Map<string, { content: string; mtimeMs: number; since: number }>()

/** How long this process has seen `found` unchanged: 0 on first sight and after each refresh. */
function unrefreshedForMs(found: FoundMutex): number {
  const { mtimeMs } = found.stat
  // A file system wrapper that drops mtimes makes every holder look fresh: it is waited for, never broken.
  if (mtimeMs === undefined) return 0
  const now = performance.now()
  const seen = sightings.get(found.path)
  if (seen && seen.content === found.content && seen.mtimeMs === mtimeMs) return now - seen.since
  sightings.set(found.path, { content: found.content, mtimeMs, since: now })
  return 0
}

/**
 * Breaks a dead or stalled holder's mutex, holding `<mutex>.break` so that one process breaks it at
 * a time, and only if the mutex still holds what was judged (a fresh mutex is never removed).
 */
async function breakMutex(
  fs: FileSystem,
  path: string,
  found: FoundMutex,
  reason: 'dead' | 'stalled',
  options: MutexOptions,
  content: string,
): Promise<void> {
  const breakPath = `${path}.break`
  const breakHandle = await createExclusiveFile(fs, breakPath, content)
  if (!breakHandle) {
    // Another process is breaking it. A break lock left by a dead or stalled breaker is taken over.
    const other = await inspect(fs, breakPath)
    if (other && judge(other, options.staleLockMs)) await takeOver(fs, breakPath, other.content)
    return
  }
  try {
    const now = await inspect(fs, path)
    if (!now || now.content !== found.content) return
    if (reason === 'stalled' && !judge(now, options.staleLockMs)) return // refreshed meanwhile: alive after all
    try {
      await fs.unlink(path)
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error
      return
    }
    const ageMs = reason === 'stalled' ? Math.round(unrefreshedForMs(now)) : 0
    sightings.delete(path)
    options.onBroken?.({ file: path, pid: found.holder?.pid, host: found.holder?.host, reason, ageMs })
  } finally {
    await breakHandle.close().catch(() => {})
    if ((await readLockFile(fs, breakPath)) === content) await fs.unlink(breakPath).catch(() => {})
  }
}

function heldMutex(file: string, options: MutexOptions, taken: { handle: FileHandle; content: string }, letNextIn: () => void): HeldMutex {
  const { fs } = options
  const path = mutexPathOf(file)
  const bytes = Buffer.from(taken.content)
  let beat: Promise<void> = Promise.resolve()
  // Rewriting the same bytes through our own handle refreshes the mtime of our file only: if the
  // mutex was broken and taken by another process meanwhile, its file is a different one.
  const timer = setInterval(() => {
    beat = taken.handle.write(bytes, 0).catch(() => {})
  }, options.heartbeatMs)
  timer.unref()
  let released: Promise<void> | undefined
  return {
    async stillHeld() {
      return (await readLockFile(fs, path)) === taken.content
    },
    release() {
      released ??= (async () => {
        clearInterval(timer)
        try {
          await beat
          if ((await readLockFile(fs, path)) === taken.content) await fs.unlink(path)
        } catch (error) {
          if (errorCode(error) !== 'ENOENT') throw error
        } finally {
          await taken.handle.close().catch(() => {})
          letNextIn()
        }
      })()
      return released
    },
  }
}
