/**
 * Outbound content as journaled: JSON, Buffers as base64. Content that cannot be encoded (a
 * stream) or that is larger than `outbox.maxPayloadBytes` bypasses the outbox.
 */
import type { OutboundContent } from '../../provider/provider.js'
import type { Json } from '../journal/kv.js'

const BUFFER_TAG = '$base64'

/** Why content cannot be journaled, or null when it can. */
export type BypassReason = 'unencodable' | 'too-large'

/** Encodes content to JSON, or tells why it cannot be journaled. */
export function encodePayload(content: OutboundContent, maxBytes: number): { payload: Json } | { bypass: BypassReason; detail: string } {
  // The common case, a short text, needs no walk: its JSON is at most 6 bytes per UTF-16 unit.
  if (typeof content === 'string' && content.length * 6 + 2 <= maxBytes) return { payload: content }
  let encoded: Json
  try {
    encoded = encode(content)
  } catch (error) {
    return { bypass: 'unencodable', detail: error instanceof Error ? error.message : String(error) }
  }
  const bytes = Buffer.byteLength(JSON.stringify(encoded))
  if (bytes > maxBytes) return { bypass: 'too-large', detail: `${bytes} bytes is over outbox.maxPayloadBytes (${maxBytes})` }
  return { payload: encoded }
}

/** Rebuilds content from its journaled JSON. */
export function decodePayload(payload: Json): OutboundContent {
  return decode(payload) as OutboundContent
}

function encode(value: unknown): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`a non-finite number (${value}) cannot be journaled`)
    return value
  }
  if (value === undefined) return null
  if (Buffer.isBuffer(value)) return { [BUFFER_TAG]: value.toString('base64') }
  if (Array.isArray(value)) return value.map(encode)
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) {
      throw new Error(`a ${prototype?.constructor?.name ?? 'non-plain'} object (a stream?) cannot be journaled`)
    }
    const out: Record<string, Json> = {}
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = encode(item)
    return out
  }
  throw new Error(`a ${typeof value} cannot be journaled`)
}

function decode(value: Json): unknown {
  if (Array.isArray(value)) return value.map(decode)
  if (value && typeof value === 'object') {
    const keys = Object.keys(value)
    if (keys.length === 1 && keys[0] === BUFFER_TAG && typeof value[BUFFER_TAG] === 'string')
      return Buffer.from(value[BUFFER_TAG], 'base64')
    return Object.fromEntries(keys.map((key) => [key, decode(value[key]!)]))
  }
  return value
}
