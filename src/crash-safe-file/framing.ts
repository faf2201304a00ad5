/**
 * The record framing shared by the append log and the snapshot (I7): one record per line,
 * `<seq>\t<length>\t<crc32>\t<payload>\n`. The length and checksum tell a complete record from a
 * damaged one; the newline tells a complete record from a torn one. The checksum is the CRC-32 of
 * `<seq>\t<length>\t` XOR the CRC-32 of the payload, so a payload's CRC can be computed once and
 * reused for every snapshot that holds it.
 */
import * as zlib from 'node:zlib'

const NEWLINE = 0x0a
const TAB = 0x09

/** One framed line of a file, as read back. */
export interface FramedLine {
  /** 1-based line number in the file. */
  line: number
  /** Byte offset of the line's first byte. */
  offset: number
  /** The line's bytes without the newline. */
  bytes: Buffer
}

/** A decoded record. */
export interface FramedRecord {
  seq: number
  payload: string
  /** The payload's UTF-8 length and CRC-32, as read and checked: what framing it again needs. */
  bytes: number
  crc: number
}

/** The lines of a file, and what follows the last newline (a torn tail, if not empty). */
export interface SplitLines {
  lines: FramedLine[]
  /** Bytes after the last newline: an incomplete last record. */
  tail: { offset: number; bytes: number } | undefined
}

/** A payload ready to frame: its UTF-8 bytes and their CRC-32, computed once. */
export interface FramedPayload {
  data: Buffer
  crc: number
}

/** Encodes and checksums a payload (which must be single-line, as JSON is). */
export function preparePayload(text: string): FramedPayload {
  if (text.includes('\n')) throw new Error('a framed payload must not contain a newline')
  const data = Buffer.from(text)
  return { data, crc: crc32(data) }
}

/** The most bytes `frameInto` writes besides the payload: two numbers of up to 16 digits, the checksum, three tabs and the newline. */
export const FRAME_OVERHEAD_MAX = 16 + 16 + 8 + 4

/**
 * Frames one record into `target` at `at` and returns where its line ends: the one place the
 * format is written, for the log's appends and the snapshot's lines alike. A snapshot frames every
 * entry again at each fold (its sequence is its line number): this builds no string, and copies the
 * payload's bytes as prepared.
 */
export function frameInto(target: Buffer, at: number, seq: number, payload: FramedPayload): number {
  let end = writeDecimal(target, at, seq)
  target[end++] = TAB
  end = writeDecimal(target, end, payload.data.length)
  target[end++] = TAB
  // The head is a few bytes: checksummed here, a native call per line cost more than the loop.
  const sum = (crc32Range(target, at, end) ^ payload.crc) >>> 0
  for (let shift = 28; shift >= 0; shift -= 4) target[end++] = HEX_DIGITS[(sum >>> shift) & 0xf]!
  target[end++] = TAB
  target.set(payload.data, end)
  end += payload.data.length
  target[end++] = NEWLINE
  return end
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')
const DIGIT_ZERO = 0x30

/** Writes a whole number >= 0 in decimal ASCII at `at`; returns where it ends. */
function writeDecimal(target: Buffer, at: number, value: number): number {
  let digits = 1
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++
  let rest = value
  for (let n = at + digits - 1; n >= at; n--) {
    target[n] = DIGIT_ZERO + (rest % 10)
    rest = Math.floor(rest / 10)
  }
  return at + digits
}

/** Frames consecutive records, from `firstSeq` on, into the one buffer an append writes. */
export function encodeRecords(firstSeq: number, payloads: readonly string[]): Buffer {
  const prepared = payloads.map(preparePayload)
  let most = 0
  for (const payload of prepared) most += payload.data.length + FRAME_OVERHEAD_MAX
  const data = Buffer.allocUnsafe(most)
  let at = 0
  for (let n = 0; n < prepared.length; n++) at = frameInto(data, at, firstSeq + n, prepared[n]!)
  return data.subarray(0, at)
}

/** Splits a file's bytes into newline-terminated lines plus an unterminated tail. */
export function splitLines(content: Buffer): SplitLines {
  const lines: FramedLine[] = []
  let start = 0
  for (;;) {
    const end = content.indexOf(NEWLINE, start)
    if (end === -1) break
    lines.push({ line: lines.length + 1, offset: start, bytes: content.subarray(start, end) })
    start = end + 1
  }
  const tail = start < content.length ? { offset: start, bytes: content.length - start } : undefined
  return { lines, tail }
}

/** Decodes a complete line; a string says what is wrong with it. */
export function decodeRecord(bytes: Buffer): FramedRecord | string {
  const first = bytes.indexOf(TAB)
  const second = first === -1 ? -1 : bytes.indexOf(TAB, first + 1)
  const third = second === -1 ? -1 : bytes.indexOf(TAB, second + 1)
  if (third === -1) return 'not a framed record (expected seq, length, checksum and payload)'
  const seqText = bytes.toString('latin1', 0, first)
  const lengthText = bytes.toString('latin1', first + 1, second)
  const sum = bytes.toString('latin1', second + 1, third)
  if (!/^\d{1,15}$/.test(seqText) || !/^\d{1,15}$/.test(lengthText)) return 'the sequence or length is not a number'
  const seq = Number(seqText)
  const length = Number(lengthText)
  const payloadBytes = bytes.subarray(third + 1)
  if (payloadBytes.length !== length) return `the payload is ${payloadBytes.length} bytes, its frame says ${length}`
  const crc = crc32(payloadBytes)
  if (sum !== hex(crc32(bytes.subarray(0, second + 1)) ^ crc)) return 'the checksum does not match'
  return { seq, payload: payloadBytes.toString('utf8'), bytes: length, crc }
}

function hex(sum: number): string {
  return (sum >>> 0).toString(16).padStart(8, '0')
}

type Crc32 = (data: Uint8Array | string, initial?: number) => number

/** CRC-32 (IEEE), continuing from `initial`: zlib's native one where Node has it (>= 20.15), else a table in JS. */
export const crc32: Crc32 = (zlib as { crc32?: Crc32 }).crc32 ?? crc32Js

let table: Uint32Array | undefined

function crc32Js(input: Uint8Array | string, initial = 0): number {
  const data = typeof input === 'string' ? Buffer.from(input) : input
  return crc32Range(data, 0, data.length, initial)
}

/** CRC-32 (IEEE) of `data` from `from` (inclusive) to `to` (exclusive), in JS: for a few bytes, or where zlib has none. */
function crc32Range(data: Uint8Array, from: number, to: number, initial = 0): number {
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  let crc = (initial ^ 0xffffffff) >>> 0
  for (let i = from; i < to; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
