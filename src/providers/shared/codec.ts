/**
 * The media-reference codec every channel folder builds: what a provider's `serializeMediaRef` and
 * `rehydrateMediaRef` delegate to. A channel describes three things (which fields of a live token
 * are journaled, how a stored value is checked, and which token a stored value rebuilds) and
 * `defineMediaRefCodec` adds what every channel shares: the version, a check over the stored data
 * that refuses a hand-edited value, and typed errors.
 */
import { createHash } from 'node:crypto'
import type { Json } from '../../core/provider/provider.js'
import type { MediaRef, StoredMediaRef } from '../../core/provider/provider.js'
import { MediaRefInvalidError } from './errors.js'

/** Serializes a channel's media references for the journal and rebuilds them on replay. */
export interface MediaRefCodec<Token = unknown> {
  /** The channel (the provider's `name`). */
  readonly channel: string
  /** The version written into every stored reference; a stored reference of another version is refused. */
  readonly version: number
  /** The journaled form of a live reference, or undefined when the media cannot be made durable. Never throws. */
  serialize(media: MediaRef): StoredMediaRef | undefined
  /** The reference rebuilt from the journal; throws `MediaRefInvalidError` when `stored` is not valid. */
  rehydrate(
    stored: StoredMediaRef,
    media: MediaRef,
  ): MediaRef & {
    /** The channel's token rebuilt from the stored fields: what the provider's `download` takes. */
    token: Token
  }
}

/** What a channel tells `defineMediaRefCodec`. */
export interface MediaRefSpec<Data extends { [key: string]: Json }, Token> {
  /** The channel (the provider's `name`); it also goes into the check over the stored data. */
  channel: string
  /** Picks the journaled fields of a live token (no credentials, ever); undefined when it cannot be made durable. */
  pick(token: unknown, media: MediaRef): Data | undefined
  /** Validates a stored value; returns why it is not valid, or undefined. Runs on write and on read. */
  problem(data: { [key: string]: Json }): string | undefined
  /** The token a stored value rebuilds: the shape the provider's `download` takes for a live message. */
  token(data: Data): Token
}

/** The version of every stored reference this layer writes. */
export const MEDIA_REF_VERSION = 1

/** The name of the check field inside `data`. */
const CHECK = 'check'

/** Builds a channel's codec from its spec. */
export function defineMediaRefCodec<Data extends { [key: string]: Json }, Token>(spec: MediaRefSpec<Data, Token>): MediaRefCodec<Token> {
  return {
    channel: spec.channel,
    version: MEDIA_REF_VERSION,
    serialize(media) {
      let data: Data | undefined
      try {
        data = spec.pick(media.token, media)
      } catch {
        // A live token of an unexpected shape is not durable; the live message still runs.
        return undefined
      }
      if (!data || spec.problem(data) !== undefined) return undefined
      return { v: MEDIA_REF_VERSION, data: { ...data, [CHECK]: checkOf(spec.channel, data) } }
    },
    rehydrate(stored, media) {
      const refuse = (detail: string): never => {
        throw new MediaRefInvalidError(spec.channel, detail)
      }
      if (stored.v !== MEDIA_REF_VERSION) refuse(`unknown version ${JSON.stringify(stored.v)} (expected ${MEDIA_REF_VERSION})`)
      const raw = stored.data
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return refuse('the data is not an object')
      const { [CHECK]: check, ...data } = raw
      const problem = spec.problem(data)
      if (problem !== undefined) refuse(problem)
      if (check !== checkOf(spec.channel, data)) refuse('the data does not match its check (it was changed after it was journaled)')
      return { ...media, token: spec.token(data as Data) }
    },
  }
}

/**
 * A check over a stored value: a digest of the channel, the version and the data in canonical JSON.
 * It is not a signature (anyone who knows the format can recompute it): it refuses damage and hand
 * edits, and every field is still validated on its own.
 */
export function checkOf(channel: string, data: { [key: string]: Json }): string {
  return createHash('sha256')
    .update(`${channel}\n${MEDIA_REF_VERSION}\n${canonicalJson(data)}`)
    .digest('base64url')
    .slice(0, 22)
}

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as Json)}`).join(',')}}`
}
