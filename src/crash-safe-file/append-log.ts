/**
 * An append log of framed records (I7): reading tells a torn tail from damage (I8), writing
 * appends a batch with one write and one fsync (I3, I6), and a failed append is cut away at once
 * (I5). The payloads are opaque strings: FileDurability and the events journals give
 * them their meaning.
 */
import { AppendLogCorruptError } from '../core/errors/errors.js'
import { dirname } from 'node:path'
import { AfterRenameError, readJournalFile, writeFileAtomic } from './atomic-snapshot.js'
import { decodeRecord, encodeRecords, splitLines } from './framing.js'
import { FILE_MODE, type FileHandle, type FileSystem } from './fs.js'

/** The append log of a journal file (`<file>.log`). */
export function logPathOf(file: string): string {
  return `${file}.log`
}

/** One record read back, with where it sits in the file. */
export interface LogRecord {
  seq: number
  payload: string
  /** 1-based line number. */
  line: number
  /** Byte offset of the line. */
  offset: number
}

/** A log as read back: its complete records and, if the last line was cut short, the torn tail. */
export interface LogScan {
  records: LogRecord[]
  /** Bytes up to the end of the last complete record: the size the log is cut back to. */
  validBytes: number
  /** An incomplete last line (a crash mid-append), cut by a writable open (I8). */
  tornTail: { offset: number; bytes: number } | undefined
}

/**
 * Reads and checks a whole log. Resolves undefined when there is no log. Any complete line that
 * fails its framing or sequence is damage, wherever it sits: rejects with `AppendLogCorruptError`
 * (file, line, byte offset), and changes nothing (I8).
 */
export async function readAppendLog(fs: FileSystem, path: string): Promise<LogScan | undefined> {
  const content = await readJournalFile(fs, path, { allowEmpty: true })
  return content === undefined ? undefined : scanAppendLog(path, content)
}

/** Checks a log's bytes (see `readAppendLog`); throws `AppendLogCorruptError` at the first damage. */
export function scanAppendLog(path: string, content: Buffer): LogScan {
  const scan = scanAppendLogPartial(content)
  if (scan.damage) throw new AppendLogCorruptError(path, scan.damage.line, scan.damage.offset, scan.damage.detail)
  return scan
}

/** A log read as far as it is sound, with its first damage (for verify and salvage). Never throws. */
export function scanAppendLogPartial(content: Buffer): LogScan & { damage: { line: number; offset: number; detail: string } | undefined } {
  const { lines, tail } = splitLines(content)
  const records: LogRecord[] = []
  const scan = (damage?: { line: number; offset: number; detail: string }) => ({
    records,
    validBytes: damage ? damage.offset : tail ? tail.offset : content.length,
    tornTail: damage ? undefined : tail,
    damage,
  })
  for (const { line, offset, bytes } of lines) {
    const decoded = decodeRecord(bytes)
    if (typeof decoded === 'string') return scan({ line, offset, detail: decoded })
    const previous = records.at(-1)
    if (decoded.seq < 1) return scan({ line, offset, detail: `sequence ${decoded.seq} is not positive` })
    if (previous && decoded.seq !== previous.seq + 1) {
      return scan({ line, offset, detail: `sequence ${decoded.seq} follows ${previous.seq}; records are missing or repeated` })
    }
    records.push({ ...decoded, line, offset })
  }
  return scan()
}

/** Options of `AppendLog.open`. */
export interface AppendLogWriterOptions {
  /** The bytes of the log that hold complete records (`LogScan.validBytes`, or 0 for a new log). Anything after is cut. */
  validBytes: number
  /** The last sequence written (in the log or folded into the snapshot); the next record gets +1. */
  lastSeq: number
  /** The records the log holds now (for compaction thresholds). */
  records: number
  /** Fsync after every append (I3). */
  fsync: boolean
}

/** The writing end of an append log. One writer at a time (the lock, I14). */
export class AppendLog {
  readonly path: string
  readonly #handle: FileHandle
  readonly #fsync: boolean
  #size: number
  #lastSeq: number
  #records: number
  /**
   * Set when a failed append could not be cut back (the file may hold a record nobody
   * acknowledged), or when the log was replaced after a fold but not durably: no more appends here.
   */
  #broken: { why: string; cause: unknown } | undefined

  private constructor(path: string, handle: FileHandle, options: AppendLogWriterOptions) {
    this.path = path
    this.#handle = handle
    this.#fsync = options.fsync
    this.#size = options.validBytes
    this.#lastSeq = options.lastSeq
    this.#records = options.records
  }

  /** Opens (creating if missing) the log for appending; cuts a torn tail past `validBytes` (I8). */
  static async open(fs: FileSystem, path: string, options: AppendLogWriterOptions): Promise<AppendLog> {
    const existed = (await fs.stat(path)) !== undefined
    const handle = await fs.open(path, 'update', FILE_MODE)
    try {
      // A new log's name must be durable before its first record is acknowledged (I12).
      if (!existed && options.fsync) await fs.syncDirectory(dirname(path))
      if ((await handle.size()) > options.validBytes) {
        await handle.truncate(options.validBytes)
        await handle.sync() // a cut is always fsynced before an append follows it (I11)
      }
    } catch (error) {
      await handle.close().catch(() => {})
      throw error
    }
    return new AppendLog(path, handle, options)
  }

  /** The sequence of the last record appended. */
  get lastSeq(): number {
    return this.#lastSeq
  }

  /** Bytes of complete records in the log. */
  get size(): number {
    return this.#size
  }

  /** Records in the log since it was last empty. */
  get records(): number {
    return this.#records
  }

  /**
   * Appends one record per payload with a single write, then fsyncs (when on). Resolves once the
   * records are as durable as the options make them (I3); on failure nothing counts as appended.
   */
  async append(payloads: readonly string[]): Promise<void> {
    if (payloads.length === 0) return
    if (this.#broken !== undefined) throw new Error(`${this.path} ${this.#broken.why}; reopen the journal`, { cause: this.#broken.cause })
    const data = encodeRecords(this.#lastSeq + 1, payloads)
    try {
      await this.#handle.write(data, this.#size)
      if (this.#fsync) await this.#handle.sync()
    } catch (error) {
      // Cut the records back at once (I5): a restart must not replay a write that was refused.
      await this.#cutBack().catch((cause: unknown) => (this.#broken = { why: 'could not be cut back after a failed append', cause }))
      throw error
    }
    this.#size += data.length
    this.#lastSeq += payloads.length
    this.#records += payloads.length
  }

  /** Whether a failed append could not be cut back (the journal must be reopened). */
  get broken(): boolean {
    return this.#broken !== undefined
  }

  async #cutBack(): Promise<void> {
    await this.#handle.truncate(this.#size)
    await this.#handle.sync()
  }

  /**
   * Drops the log's first `folded` records (`bytes` long), which a durable snapshot now holds, and
   * keeps the ones appended since (I11): with none, the log is emptied in place; otherwise the kept
   * records are written to a new log that replaces this one by rename (I2), and the writer goes on
   * there. Resolves to the writer to append with from now on (this one is closed when replaced).
   * Failing before the rename, this log is as it was; after it, `broken` is set: appends here
   * would go to the replaced file.
   */
  async dropFolded(fs: FileSystem, folded: { bytes: number; records: number }): Promise<AppendLog> {
    if (folded.bytes === this.#size) {
      await this.truncate()
      return this
    }
    const kept = (await fs.readFile(this.path)).subarray(folded.bytes, this.#size)
    let renamed = false
    try {
      await writeFileAtomic(fs, this.path, [kept], { fsync: true })
      renamed = true
      const next = await AppendLog.open(fs, this.path, {
        validBytes: kept.byteLength,
        lastSeq: this.#lastSeq,
        records: this.#records - folded.records,
        fsync: this.#fsync,
      })
      await this.#handle.close().catch(() => {}) // the replaced file: nothing more is written to it
      return next
    } catch (error) {
      if (renamed || error instanceof AfterRenameError)
        this.#broken = { why: 'was replaced by its records after a fold, but not durably', cause: error }
      throw error
    }
  }

  /** Empties the log (after its records were folded into a durable snapshot, I11). Sequences continue. */
  async truncate(): Promise<void> {
    await this.#handle.truncate(0)
    await this.#handle.sync()
    this.#size = 0
    this.#records = 0
  }

  async close(): Promise<void> {
    await this.#handle.close()
  }
}
