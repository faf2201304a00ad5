/**
 * `salvageJournal(path, out)`: rescues what a refused journal still holds. The readable part of
 * the snapshot, then the readable log records up to the damage, are written as a new snapshot at
 * `out`. The damaged files are left as they are; nothing is repaired in place.
 */
import { ConfigError } from '../../core/errors/errors.js'
import { KvState } from '../../core/backend-internals.js'
import { writeFileAtomic } from '../../crash-safe-file/atomic-snapshot.js'
import { applyChanges } from '../../crash-safe-file/changes.js'
import { nodeFileSystem, type FileSystem } from '../../crash-safe-file/fs.js'
import { inspectJournal } from './inspection.js'
import { encodeSnapshot } from '../../crash-safe-file/snapshot-format.js'

/** What a salvage kept and lost. */
export interface SalvageReport {
  /** The new journal file. */
  out: string
  /** Entries the new file holds. */
  entries: number
  /** Entries read from the snapshot, and log records replayed on top. */
  fromSnapshot: number
  /** Log records replayed on top of the snapshot. */
  fromLog: number
  /** Where reading stopped, per file (absent: the file was read whole). */
  snapshotDamage?: {
    /** The damaged line, from 1. */
    line: number
    /** Its byte offset. */
    offset: number
    /** What is wrong with it. */
    detail: string
  }
  /** Where reading the log stopped, as `snapshotDamage`. */
  logDamage?: {
    /** The damaged line, from 1. */
    line: number
    /** Its byte offset. */
    offset: number
    /** What is wrong with it. */
    detail: string
  }
  /** Complete log lines from the damaged one on, lost. */
  logLinesLost: number
}

/**
 * Writes what is readable of the journal at `path` into a new journal at `out` (which must not
 * exist). Use it when open() refuses a journal: check the report, then move the damaged files
 * (`path` and `path.log`) aside and `out` into place. The new file has no log: its sequences
 * start again, so never put it next to the old log.
 */
export async function salvageJournal(path: string, out: string, options: { fs?: FileSystem } = {}): Promise<SalvageReport> {
  const fs = options.fs ?? nodeFileSystem
  if (await fs.stat(out)) throw new ConfigError(`salvage: ${out} exists; give a new file to write into`)
  const { snapshot, log } = await inspectJournal(fs, path)
  const state = new KvState()
  for (const { scope, collection, entry } of snapshot.entries) state.load(scope, collection, entry)
  // Without a readable header the folded sequence is unknown: every readable record is replayed.
  const logSeq = snapshot.header?.logSeq ?? 0
  const replay = log.records.filter((record) => record.seq > logSeq)
  for (const record of replay) applyChanges(state, record.changes)
  await writeFileAtomic(fs, out, encodeSnapshot(state, 0).chunks, { fsync: true })
  return {
    out,
    entries: state.size,
    fromSnapshot: snapshot.entries.length,
    fromLog: replay.length,
    ...(snapshot.damage && { snapshotDamage: snapshot.damage }),
    ...(log.damage && { logDamage: log.damage }),
    logLinesLost: log.linesLost,
  }
}
