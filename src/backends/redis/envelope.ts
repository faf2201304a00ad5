/**
 * How an entry is stored: one hash field per entry holding an *envelope*, a one-line JSON header
 * `[version, state, stateTime, due, timeHex]`, a newline, then the value's JSON. A read is a plain
 * HMGET; a script reads only the header (version and the index members to remove) with cjson,
 * never the value. JSON never contains a raw newline, so the first one ends the header.
 *
 * The state-time index is a sorted set with every score 0 whose members are `timeHex(stateTime)`
 * followed by the entry key: byte order of the members is then (stateTime, key) order, so a page
 * after a cursor, a cut by age and a purge are each one ZRANGEBYLEX, whatever ties there are.
 */
import type { Json, KvEntry, KvPut } from '../../core/spi.js'

/** The length of `timeHex`'s output. */
export const TIME_HEX_LENGTH = 16

/** The header fields, as the scripts index them (1-based in Lua). */
type Header = [version: number, state: string, stateTime: number, due: number | null, timeHex: string]

/** The envelope to store for a put that will hold `version`. */
export function encodeEnvelope(put: KvPut, version: number): string {
  // The op was checked (checkKvOp) before it got here.
  const header: Header = [version, put.state, put.stateTime, put.due, timeHex(put.stateTime)]
  return `${JSON.stringify(header)}\n${JSON.stringify(put.value)}`
}

/** The entry an envelope holds. */
export function decodeEnvelope(key: string, envelope: string): KvEntry {
  const newline = envelope.indexOf('\n')
  const [version, state, stateTime, due] = JSON.parse(envelope.slice(0, newline)) as Header
  return { key, version, state, stateTime, due, value: JSON.parse(envelope.slice(newline + 1)) as Json }
}

/** The state index member of an entry. */
export function stateMember(stateTime: number, key: string): string {
  return timeHex(stateTime) + key
}

/** The entry key inside a state index member. */
export function keyOfMember(member: string): string {
  return member.slice(TIME_HEX_LENGTH)
}

/** A ZRANGEBYLEX bound: members after (stateTime, key), exclusive. */
export function lexAfter(after: { stateTime: number; key: string } | undefined): string {
  return after ? `(${stateMember(after.stateTime, after.key)}` : '-'
}

/** A ZRANGEBYLEX bound: members whose stateTime is below `before`. */
export function lexBefore(before: number | undefined): string {
  return before === undefined ? '+' : `(${timeHex(before)}`
}

/** A sorted set score bound for a JS number (Redis spells infinity `+inf` / `-inf`). */
export function scoreBound(value: number): string {
  if (Number.isNaN(value)) throw new RangeError('a score bound must be a number, got NaN')
  if (value === Infinity) return '+inf'
  if (value === -Infinity) return '-inf'
  return String(value)
}

const view = new DataView(new ArrayBuffer(8))

/**
 * 16 hex digits whose byte order is the numeric order of `time`: the IEEE-754 bits, big-endian,
 * with the sign bit flipped for positives and every bit flipped for negatives.
 */
export function timeHex(time: number): string {
  if (!Number.isFinite(time)) throw new RangeError(`a stateTime must be a finite number, got ${time}`)
  view.setFloat64(0, time === 0 ? 0 : time) // -0 sorts as 0
  let high = view.getUint32(0)
  let low = view.getUint32(4)
  if (high & 0x8000_0000) {
    high = ~high >>> 0
    low = ~low >>> 0
  } else {
    high = (high | 0x8000_0000) >>> 0
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0')
}
