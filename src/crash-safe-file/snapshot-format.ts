/**
 * FileDurability's snapshot: a header line, then one framed line per entry (I7). It is read whole
 * and strictly (I9): a short, junk or misshapen file is refused, never read as empty or in part.
 */
import { JournalCorruptError } from '../core/errors/errors.js'
import type { KvEntry, KvState } from '../core/backend-internals.js'
import { decodePlacedEntry, encodePlacedEntry, type PlacedEntry } from './changes.js'
import { decodeRecord, FRAME_OVERHEAD_MAX, frameInto, preparePayload, splitLines, type FramedPayload } from './framing.js'

/** The format name in every snapshot's header. */
export const SNAPSHOT_FORMAT = 'botmesh-file-durability'
/** The snapshot version this code writes and reads. */
export const SNAPSHOT_VERSION = 1

/** A snapshot's header. */
export interface SnapshotHeader {
  /** `SNAPSHOT_FORMAT` for FileDurability; the events journals write their own name here. */
  format: string
  version: typeof SNAPSHOT_VERSION
  /** The sequence of the last log record folded in (I10). */
  logSeq: number
  /** How many entry lines follow. */
  entries: number
}

/** Where a file is damaged. */
export interface Damage {
  line: number
  offset: number
  detail: string
}

/** A snapshot read as far as it goes: what was readable, and the first damage if any. */
export interface SnapshotScan {
  header: SnapshotHeader | undefined
  entries: PlacedEntry[]
  damage: Damage | undefined
}

/**
 * Entries as they were before writes that are applied in memory but not committed yet, keyed by
 * `overlayKey`: the entry to write instead (null: write none). A snapshot must not hold a write
 * that may still fail and be rolled back (I5).
 */
export type SnapshotOverlay = Map<string, PlacedEntry | null>

/** The overlay key of an entry. */
export function overlayKey(scope: string, collection: string, key: string): string {
  return `${scope}\u0000${collection}\u0000${key}`
}

/**
 * Encoded snapshot payloads of entries, kept while the entry object lives. Entries are never mutated
 * (a write replaces the object), so a payload encoded once serves every later snapshot: a fold
 * only encodes the entries written since the last one. It costs about the journal's JSON size in
 * memory, and saves most of a fold's time (JSON.stringify dominates it).
 */
export type SnapshotEncodingCache = WeakMap<KvEntry, FramedPayload>

/** The entries a snapshot of `state` holds: the committed ones (`overlay` undoes what is not committed yet). */
export function snapshotEntries(state: KvState, overlay: SnapshotOverlay = new Map()): PlacedEntry[] {
  const entries: PlacedEntry[] = []
  for (const placed of state.entries()) {
    if (overlay.size === 0 || !overlay.has(overlayKey(placed.scope, placed.collection, placed.entry.key))) entries.push(placed)
  }
  for (const placed of overlay.values()) if (placed) entries.push(placed)
  return entries
}

/** The size of the buffers a snapshot is framed into, each one write call: large enough to be cheap, small enough to bound a copy. */
export const SNAPSHOT_CHUNK_BYTES = 1 << 20

/** A snapshot ready to write: its bytes, in chunks of about SNAPSHOT_CHUNK_BYTES, and the entries it holds. */
export interface EncodedSnapshot {
  chunks: Buffer[]
  entries: number
}

/**
 * A snapshot of `state` (seen through `overlay`) that has folded the log up to `logSeq`; an
 * entry's payload comes from `cache` when an earlier snapshot encoded it. `format` names the
 * file's kind in its header (the events journals use the same layout under another name).
 */
export function encodeSnapshot(
  state: KvState,
  logSeq: number,
  overlay: SnapshotOverlay = new Map(),
  cache: SnapshotEncodingCache = new WeakMap(),
  format: string = SNAPSHOT_FORMAT,
): EncodedSnapshot {
  const entries = snapshotEntries(state, overlay)
  const writer = new SnapshotWriter(entries.length, logSeq, format)
  writer.frame(entries, 0, entries.length, cache)
  return writer.done()
}

/**
 * `encodeSnapshot` of entries taken before (`snapshotEntries`), encoded `sliceEntries` at a time
 * with a turn of the event loop between: a fold of a large journal does not hold the event loop
 * for the whole of it. Entries are never mutated, so the ones taken stay what they were.
 */
export async function encodeSnapshotInSlices(
  entries: readonly PlacedEntry[],
  logSeq: number,
  cache: SnapshotEncodingCache,
  format: string,
  sliceEntries: number,
): Promise<EncodedSnapshot> {
  const writer = new SnapshotWriter(entries.length, logSeq, format)
  for (let from = 0; from < entries.length; from += sliceEntries) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve))
    writer.frame(entries, from, from + sliceEntries, cache)
  }
  return writer.done()
}

/**
 * Frames a snapshot straight into the buffers it is written from: the header, then line n + 1 for
 * entry n. A fold frames every entry again (a line's sequence is its number), so this is most of
 * a fold's work on a large journal: no line is built as a string, no text is encoded twice.
 */
class SnapshotWriter {
  readonly #chunks: Buffer[] = []
  #chunk = Buffer.alloc(0)
  #at = 0
  readonly #entries: number

  constructor(entries: number, logSeq: number, format: string) {
    this.#entries = entries
    const header: SnapshotHeader = { format, version: SNAPSHOT_VERSION, logSeq, entries }
    this.#line(1, preparePayload(JSON.stringify(header)))
  }

  /** Frames entries `from` (inclusive) to `to` (exclusive). */
  frame(entries: readonly PlacedEntry[], from: number, to: number, cache: SnapshotEncodingCache): void {
    for (let n = from; n < Math.min(to, entries.length); n++) {
      const placed = entries[n]!
      let payload = cache.get(placed.entry)
      if (!payload) {
        payload = preparePayload(encodePlacedEntry(placed))
        cache.set(placed.entry, payload)
      }
      this.#line(n + 2, payload)
    }
  }

  done(): EncodedSnapshot {
    if (this.#at > 0) this.#chunks.push(this.#chunk.subarray(0, this.#at))
    this.#at = 0
    return { chunks: this.#chunks, entries: this.#entries }
  }

  #line(seq: number, payload: FramedPayload): void {
    const most = payload.data.length + FRAME_OVERHEAD_MAX
    if (this.#at + most > this.#chunk.length) {
      if (this.#at > 0) this.#chunks.push(this.#chunk.subarray(0, this.#at))
      this.#chunk = Buffer.allocUnsafe(Math.max(SNAPSHOT_CHUNK_BYTES, most))
      this.#at = 0
    }
    this.#at = frameInto(this.#chunk, this.#at, seq, payload)
  }
}

/**
 * Reads a snapshot whole; rejects any damage with a `JournalCorruptError` naming the file (I9).
 * Each entry's line goes into `cache`, so the next fold frames it again without encoding it.
 */
export function decodeSnapshot(
  file: string,
  content: Buffer,
  format: string = SNAPSHOT_FORMAT,
  cache?: SnapshotEncodingCache,
): { logSeq: number; entries: PlacedEntry[] } {
  const scan = scanSnapshot(content, format, cache)
  if (scan.damage) {
    const { line, offset, detail } = scan.damage
    throw new JournalCorruptError(file, `the snapshot cannot be read back at line ${line} (byte offset ${offset}): ${detail}`)
  }
  return { logSeq: scan.header!.logSeq, entries: scan.entries }
}

/** Reads a snapshot as far as it is sound (for verify and salvage). Never throws. */
export function scanSnapshot(content: Buffer, format: string = SNAPSHOT_FORMAT, cache?: SnapshotEncodingCache): SnapshotScan {
  const { lines, tail } = splitLines(content)
  const entries: PlacedEntry[] = []
  let header: SnapshotHeader | undefined
  for (const { line, offset, bytes } of lines) {
    const damage = (detail: string): SnapshotScan => ({ header, entries, damage: { line, offset, detail } })
    const record = decodeRecord(bytes)
    if (typeof record === 'string') return damage(line === 1 ? `not a ${formatLabel(format)} snapshot (${record})` : record)
    if (record.seq !== line) return damage(`line ${line} carries sequence ${record.seq}`)
    if (line === 1) {
      const checked = checkHeader(record.payload, format)
      if (typeof checked === 'string') return damage(checked)
      header = checked
      continue
    }
    if (entries.length >= header!.entries) return damage(`more lines than the ${header!.entries} entries its header announces`)
    const placed = decodePlacedEntry(record.payload)
    if (typeof placed === 'string') return damage(placed)
    // The line was made from this very entry: a fold may frame it again as it is (I7 holds for it).
    // Its payload is the line's last bytes, copied: the cache must not hold the whole file alive.
    cache?.set(placed.entry, { data: Buffer.from(bytes.subarray(bytes.length - record.bytes)), crc: record.crc })
    entries.push(placed)
  }
  const end = { line: lines.length + 1, offset: tail?.offset ?? content.length }
  if (tail)
    return { header, entries, damage: { ...end, detail: `the last ${tail.bytes} bytes are an incomplete line: the file was cut short` } }
  if (!header) return { header, entries, damage: { ...end, detail: 'no header line' } }
  if (entries.length < header.entries) {
    return {
      header,
      entries,
      damage: { ...end, detail: `${entries.length} of the ${header.entries} entries its header announces: the file was cut short` },
    }
  }
  return { header, entries, damage: undefined }
}

function checkHeader(payload: string, format: string): SnapshotHeader | string {
  let value: Partial<SnapshotHeader>
  try {
    value = JSON.parse(payload) as Partial<SnapshotHeader>
  } catch {
    return 'the header is not JSON'
  }
  if (value?.format !== format) return `not a ${formatLabel(format)} snapshot (format ${JSON.stringify(value?.format)})`
  if (value.version !== SNAPSHOT_VERSION)
    return `snapshot version ${JSON.stringify(value.version)} is not supported (expected ${SNAPSHOT_VERSION})`
  if (!Number.isSafeInteger(value.logSeq) || value.logSeq! < 0) return 'the header has no valid logSeq'
  if (!Number.isSafeInteger(value.entries) || value.entries! < 0) return 'the header has no valid entry count'
  return { format, version: SNAPSHOT_VERSION, logSeq: value.logSeq!, entries: value.entries! }
}

/** How messages name a snapshot of `format`. */
function formatLabel(format: string): string {
  return format === SNAPSHOT_FORMAT ? 'FileDurability' : format
}
