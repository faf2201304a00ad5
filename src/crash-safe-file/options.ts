/**
 * FileDurability's options, their defaults and limits, resolved and checked in one place.
 */
import { ConfigError } from '../core/errors/errors.js'
import { optionNames, refuseUnknownOptions } from '../core/backend-internals.js'
import { nodeFileSystem, type FileSystem } from './fs.js'
import { SNAPSHOT_FORMAT } from './snapshot-format.js'

/** Options of `FileDurability.open`. */
export interface FileDurabilityOptions {
  /**
   * Append each committed write to `<path>.log` instead of rewriting the snapshot, compacting now
   * and then. `true` takes the defaults. @default false (snapshot mode)
   */
  appendLog?: boolean | AppendLogOptions
  /**
   * Snapshot mode: flush each snapshot to disk (and its directory after the rename) before the
   * write is acknowledged. Without it the rename is atomic but may still sit in the OS cache when
   * the machine loses power. In appendLog mode it is the default of `appendLog.fsync`.
   * @default false
   */
  fsync?: boolean
  /**
   * Open without taking the lock, for tools that inspect a journal a live process may hold: nothing
   * is written, truncated or removed, and every write is refused. @default false
   */
  readOnly?: boolean
  /** The clock leases are judged by. @default Date.now */
  now?: () => number
  /** The file system every operation goes through (a test wraps it). @default the real one */
  fs?: FileSystem
}

/** Options of appendLog mode. */
export interface AppendLogOptions {
  /** Fold the log into the snapshot after this many records. @default 1000 */
  compactEvery?: number
  /** … or once the log holds this many bytes. @default 4 MiB */
  compactBytes?: number
  /** Fsync the log after each append, before the write is acknowledged. @default true */
  fsync?: boolean
}

/** Defaults and limits of the file backend. */
export const FILE_LIMITS = {
  /**
   * Log records between two compactions, by default: the contract's 1,000 (compactEvery). A fold
   * rewrites the whole state beside the appends (one at a time); a bot that writes much can pass
   * a larger compactEvery to fold less often.
   */
  compactEveryDefault: 1_000,
  /**
   * Entries a fold encodes between two turns of the event loop: a fold of a large journal runs
   * beside the appends (durable-state.ts) and never holds the event loop for long.
   */
  foldSliceEntries: 2_000,
  /** Log bytes that trigger a compaction, by default. */
  compactBytesDefault: 4 * 1024 * 1024,
  /** Writes one append carries at most (bounds one write's buffer); a snapshot rewrite takes all. */
  appendBatchMax: 1_000,
} as const

/** The names `FileDurability.open` takes, and where the ones passed at the wrong level belong. */
export const FILE_OPTION_NAMES = optionNames<FileDurabilityOptions>({ appendLog: true, fsync: true, readOnly: true, now: true, fs: true })
/** The names `appendLog: { … }` takes. */
export const APPEND_LOG_OPTION_NAMES = optionNames<AppendLogOptions>({ compactEvery: true, compactBytes: true, fsync: true })
/** Append-log settings passed beside `appendLog` instead of inside it. */
export const APPEND_LOG_MISPLACED: Readonly<Record<string, string>> = {
  compactEvery: 'it belongs under appendLog: { compactEvery }',
  compactBytes: 'it belongs under appendLog: { compactBytes }',
}

/** Refuses options `FileDurability.open` does not take (a misplaced `compactEvery` would silently run snapshot mode). */
export function refuseUnknownFileOptions(options: FileDurabilityOptions | undefined): void {
  refuseUnknownOptions('FileDurability.open', options, FILE_OPTION_NAMES, APPEND_LOG_MISPLACED)
}

/** Options with every default applied. */
export interface ResolvedFileOptions {
  mode: 'snapshot' | 'appendLog'
  /** Fsync of each commit (the snapshot, or the log). */
  fsync: boolean
  compactEvery: number
  compactBytes: number
  readOnly: boolean
  now: () => number
  fs: FileSystem
  /** Whether a writable open takes the pid lock (I14). FileDurability always does; an unlocked FileEventJournal does not. */
  lock: boolean
  /** The format name in the snapshot's header: FileDurability's, or an events journal's. */
  format: string
}

/** Applies the defaults and checks the values; throws `ConfigError`. */
export function resolveFileOptions(options: FileDurabilityOptions): ResolvedFileOptions {
  const log = options.appendLog === true ? {} : options.appendLog || undefined
  if (
    options.appendLog !== undefined &&
    typeof options.appendLog !== 'boolean' &&
    (typeof options.appendLog !== 'object' || options.appendLog === null)
  ) {
    throw new ConfigError('FileDurability: appendLog must be true, false or { compactEvery, compactBytes, fsync }')
  }
  if (log) refuseUnknownOptions('FileDurability: appendLog', log, APPEND_LOG_OPTION_NAMES)
  const compactEvery = log?.compactEvery ?? FILE_LIMITS.compactEveryDefault
  const compactBytes = log?.compactBytes ?? FILE_LIMITS.compactBytesDefault
  if (!Number.isSafeInteger(compactEvery) || compactEvery < 1) {
    throw new ConfigError(`FileDurability: appendLog.compactEvery must be a positive integer, got ${String(compactEvery)}`)
  }
  if (!Number.isSafeInteger(compactBytes) || compactBytes < 1) {
    throw new ConfigError(`FileDurability: appendLog.compactBytes must be a positive integer of bytes, got ${String(compactBytes)}`)
  }
  return {
    mode: log ? 'appendLog' : 'snapshot',
    fsync: log ? (log.fsync ?? options.fsync ?? true) : (options.fsync ?? false),
    compactEvery,
    compactBytes,
    readOnly: options.readOnly ?? false,
    now: options.now ?? Date.now,
    fs: options.fs ?? nodeFileSystem,
    lock: true,
    format: SNAPSHOT_FORMAT,
  }
}
