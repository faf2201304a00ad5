/**
 * The events journals' options, their defaults, resolved and checked in one place.
 */
import { ConfigError } from '../core/errors/errors.js'
import { optionNames, refuseUnknownOptions } from '../core/options/options.js'
import type { FileSystem } from '../crash-safe-file/fs.js'
import {
  APPEND_LOG_MISPLACED,
  APPEND_LOG_OPTION_NAMES,
  FILE_LIMITS,
  resolveFileOptions,
  type AppendLogOptions,
  type ResolvedFileOptions,
} from '../crash-safe-file/options.js'
import { EVENTS_LIMITS } from './limits.js'
import type { MutexBreak, MutexOptions } from './mutex-file.js'
import { EVENTS_SNAPSHOT_FORMAT } from './record.js'

/** Options of `FileEventJournal.open`. */
export interface FileEventJournalOptions {
  /**
   * Hold the pid lock `<path>.lock` from open to `close()`: a second process is refused, and so is
   * a second open of the file in this process. `eventsDurability` requires it. @default false
   */
  lock?: boolean
  /**
   * Flush each snapshot to disk (and its directory after the rename) before a write is
   * acknowledged. Without it the rename is atomic but may still sit in the OS cache when the
   * machine loses power. @default false
   */
  fsync?: boolean
  /**
   * With `lock`: open waits for a `SharedFileEventJournal` writing the file to finish, and breaks
   * its mutex if it was not refreshed for this long. @default 30000
   */
  staleLockMs?: number
  /**
   * Open without the lock, for tools that inspect a journal a live process may hold: nothing is
   * written, truncated or removed, and every write is refused (`JournalLockedError` with the
   * holder's pid when a live process holds the file). @default false
   */
  readOnly?: boolean
  /** The clock leases are judged by. @default Date.now */
  now?: () => number
  /** The file system every operation goes through (a test wraps it). @default the real one */
  fs?: FileSystem
}

/** Options of `SharedFileEventJournal.open`. */
export interface SharedFileEventJournalOptions {
  /**
   * Append one line per write to `<path>.log` instead of rewriting the file, folding the log into
   * the file every `compactEvery` lines (1000) or `compactBytes` (4 MiB). `true` takes the
   * defaults; `fsync` of the log defaults to true. @default false (every write rewrites the file)
   */
  appendLog?: boolean | AppendLogOptions
  /** Without appendLog: fsync each rewrite before it replaces the file. @default false */
  fsync?: boolean
  /** A mutex whose holder has not refreshed it for this long is treated as abandoned and broken. @default 30000 */
  staleLockMs?: number
  /** How often the holder refreshes the mutex while it holds it. @default staleLockMs / 3 */
  heartbeatMs?: number
  /** Told when this process breaks a mutex left by a dead or stalled process (worth a log line). */
  onMutexBroken?: (info: MutexBreak) => void
  /**
   * The clock leases are judged by. @default the host clock: the host's monotonic clock from an
   * anchor kept in `<file>.clock`, one clock for every process and never stepped (Linux; elsewhere
   * Date.now)
   */
  now?: () => number
  /** The file system every operation goes through (a test wraps it). @default the real one */
  fs?: FileSystem
}

/** The names `FileEventJournal.open` takes. */
const FILE_JOURNAL_OPTION_NAMES = optionNames<FileEventJournalOptions>({
  lock: true,
  fsync: true,
  staleLockMs: true,
  readOnly: true,
  now: true,
  fs: true,
})
/** What a FileEventJournal caller may mean by an option it does not take. */
const FILE_JOURNAL_MISPLACED: Readonly<Record<string, string>> = {
  appendLog: 'FileEventJournal always rewrites its file; SharedFileEventJournal.open takes appendLog',
  compactEvery: 'SharedFileEventJournal.open takes appendLog: { compactEvery }',
  compactBytes: 'SharedFileEventJournal.open takes appendLog: { compactBytes }',
  heartbeatMs: 'only SharedFileEventJournal.open takes it',
}
/** The names `SharedFileEventJournal.open` takes. */
const SHARED_OPTION_NAMES = optionNames<SharedFileEventJournalOptions>({
  appendLog: true,
  fsync: true,
  staleLockMs: true,
  heartbeatMs: true,
  onMutexBroken: true,
  now: true,
  fs: true,
})
/** What a SharedFileEventJournal caller may mean by an option it does not take. */
const SHARED_MISPLACED: Readonly<Record<string, string>> = {
  ...APPEND_LOG_MISPLACED,
  lock: 'a SharedFileEventJournal takes no pid lock: every write runs under <file>.mutex',
  readOnly: 'open a FileEventJournal with { readOnly: true } to inspect the file',
}

/** The mutex settings of a journal, checked. */
export function resolveMutexOptions(
  owner: string,
  options: { staleLockMs?: number; heartbeatMs?: number; onMutexBroken?: (info: MutexBreak) => void },
  fs: FileSystem,
): MutexOptions {
  const staleLockMs = options.staleLockMs ?? EVENTS_LIMITS.staleLockMsDefault
  if (typeof staleLockMs !== 'number' || !Number.isFinite(staleLockMs) || staleLockMs <= 0) {
    throw new ConfigError(`${owner}: staleLockMs must be a positive number of ms, got ${String(staleLockMs)}`)
  }
  const heartbeatMs = options.heartbeatMs ?? staleLockMs / EVENTS_LIMITS.heartbeatsPerStaleLock
  if (typeof heartbeatMs !== 'number' || !Number.isFinite(heartbeatMs) || heartbeatMs <= 0 || heartbeatMs >= staleLockMs) {
    throw new ConfigError(
      `${owner}: heartbeatMs must be a positive number of ms below staleLockMs (${staleLockMs}), got ${String(heartbeatMs)}`,
    )
  }
  return { fs, staleLockMs, heartbeatMs, onBroken: options.onMutexBroken }
}

/** FileEventJournal's options as FileDurability's state takes them: snapshot mode, its own format. */
export function resolveFileJournalOptions(options: FileEventJournalOptions): { file: ResolvedFileOptions; mutex: MutexOptions } {
  refuseUnknownOptions('FileEventJournal.open', options, FILE_JOURNAL_OPTION_NAMES, FILE_JOURNAL_MISPLACED)
  const readOnly = options.readOnly === true
  if (readOnly && options.lock)
    throw new ConfigError('FileEventJournal: readOnly and lock exclude each other (a read-only open takes no lock)')
  const base = resolveFileOptions({ fsync: options.fsync, now: options.now, fs: options.fs, readOnly })
  const file = { ...base, lock: options.lock === true, format: EVENTS_SNAPSHOT_FORMAT }
  return { file, mutex: resolveMutexOptions('FileEventJournal', options, file.fs) }
}

/** SharedFileEventJournal's options, checked. */
export function resolveSharedOptions(options: SharedFileEventJournalOptions): {
  file: ResolvedFileOptions
  mutex: MutexOptions
  batchMax: number
} {
  refuseUnknownOptions('SharedFileEventJournal.open', options, SHARED_OPTION_NAMES, SHARED_MISPLACED)
  if (typeof options.appendLog === 'object' && options.appendLog !== null) {
    refuseUnknownOptions('SharedFileEventJournal.open: appendLog', options.appendLog, APPEND_LOG_OPTION_NAMES)
  }
  let base: ResolvedFileOptions
  try {
    base = resolveFileOptions({ appendLog: options.appendLog, fsync: options.fsync, now: options.now, fs: options.fs })
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.message.replace(/^FileDurability:/, 'SharedFileEventJournal:'))
    throw error
  }
  const file = { ...base, lock: false, format: EVENTS_SNAPSHOT_FORMAT }
  const batchMax = file.mode === 'appendLog' ? FILE_LIMITS.appendBatchMax : Number.POSITIVE_INFINITY
  return { file, mutex: resolveMutexOptions('SharedFileEventJournal', options, file.fs), batchMax }
}
