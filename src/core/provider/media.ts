/**
 * Media on replay. The inbox journals a serializable reference (IProvider.serializeMediaRef), not
 * the live object; a replay rebuilds it (IProvider.rehydrateMediaRef) before the handler runs, so
 * the media downloads as it would for a live message. `loadMediaOf(ctx)` downloads lazily.
 */
import type { Json } from '../durability/journal/kv.js'
import { encodePayload } from '../durability/outbox/payload.js'
import { ERROR_CODES, EventNotJournalableError } from '../errors/errors.js'
import { MediaUnavailableError, ProviderError } from './provider-errors.js'
import type { IProvider, InboundEvent, MediaRef, StoredMediaRef } from './provider.js'

/** Media of a replayed message that cannot be downloaded, and why. */
const unavailable = new WeakMap<MediaRef, MediaUnavailableError>()
/** Media rebuilt from the journal (a download failure is then reported as MediaUnavailableError). */
const rehydrated = new WeakSet<MediaRef>()
/** The provider each context's media belongs to. */
const providers = new WeakMap<object, IProvider>()

/**
 * The inbound event as journaled: JSON, with media as a serialized reference. A serializer that
 * throws is the provider's failure, not the journal's: the event is journaled without a reference
 * (a replay then reports 'not-durable'), `warn` says why, and the handler still runs.
 */
export function journalEvent(event: InboundEvent, provider: IProvider, options: { mediaRefs: boolean; warn(message: string): void }): Json {
  const { media, ...rest } = event
  // Plain events (strings and numbers only) are JSON already; anything else goes through JSON once.
  let plain = true
  // A loop, not Object.values().every(): no array and no closure per admitted event.
  for (const key in rest) {
    const value = (rest as Record<string, unknown>)[key]
    if (!(value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) plain = false
  }
  const base = (plain ? rest : asJson(event.id, rest)) as Record<string, Json>
  if (!media) return base
  const described: Record<string, Json> = { type: media.type }
  if (media.mimeType) described.mimeType = media.mimeType
  if (media.fileName) described.fileName = media.fileName
  if (options.mediaRefs && provider.serializeMediaRef) {
    const stored = serializedOrNone(event, provider, options.warn)
    described.stored = stored ? { provider: provider.name, v: stored.v, data: stored.data } : null
  } else {
    // Providers without serializeMediaRef (or mediaRefs: false) journal the token as it is.
    const encoded = encodePayload(media.token as never, Number.MAX_SAFE_INTEGER)
    described.token = 'payload' in encoded ? encoded.payload : null
  }
  return { ...base, media: described }
}

/** The fields as JSON; one that cannot be written (a circular object, a BigInt) is a final error naming it. */
function asJson(eventId: string, fields: Record<string, unknown>): Json {
  try {
    return JSON.parse(JSON.stringify(fields)) as Json
  } catch (error) {
    const field = Object.keys(fields).find((key) => !encodes(fields[key])) ?? '?'
    throw new EventNotJournalableError(eventId, field, error)
  }
}

function encodes(value: unknown): boolean {
  try {
    JSON.stringify(value)
    return true
  } catch {
    return false
  }
}

function serializedOrNone(event: InboundEvent, provider: IProvider, warn: (message: string) => void): StoredMediaRef | undefined {
  try {
    return provider.serializeMediaRef!(event.media!)
  } catch (error) {
    warn(
      `durability: ${provider.name}.serializeMediaRef threw for event "${event.id}" (${error instanceof Error ? error.message : String(error)}); its media is journaled without a reference, so a replay cannot download it`,
    )
    return undefined
  }
}

/** Rebuilds an inbound event from the journal; media that cannot be rebuilt is marked unavailable, never thrown. */
export function replayedEvent(journaled: Json, provider: IProvider): InboundEvent {
  const { media, ...rest } = journaled as Record<string, Json>
  const event = rest as unknown as InboundEvent
  if (!media || typeof media !== 'object' || Array.isArray(media)) return event
  const described = media as Record<string, Json>
  const ref: MediaRef = { type: described.type as MediaRef['type'], token: described.token ?? undefined }
  if (typeof described.mimeType === 'string') ref.mimeType = described.mimeType
  if (typeof described.fileName === 'string') ref.fileName = described.fileName
  if (!('stored' in described)) return { ...event, media: ref }
  const stored = described.stored as { provider: string; v: number; data: Json } | null
  let result = ref
  if (stored === null) {
    unavailable.set(ref, new MediaUnavailableError('not-durable', `${provider.name} did not serialize this media reference`))
  } else if (stored.provider !== provider.name) {
    unavailable.set(
      ref,
      new MediaUnavailableError('provider-mismatch', `the record was written by ${stored.provider}, not ${provider.name}`),
    )
  } else {
    try {
      if (!provider.rehydrateMediaRef)
        throw new ProviderError(ERROR_CODES.REHYDRATE_UNSUPPORTED, `${provider.name} cannot rehydrate media references`, {
          retryable: false,
        })
      result = provider.rehydrateMediaRef({ v: stored.v, data: stored.data }, ref)
      rehydrated.add(result)
    } catch (error) {
      unavailable.set(ref, new MediaUnavailableError('rehydrate-failed', error instanceof Error ? error.message : String(error), error))
    }
  }
  return { ...event, media: result }
}

/** Ties a context to its provider, for loadMediaOf. */
export function bindMediaProvider(ctx: object, provider: IProvider): void {
  providers.set(ctx, provider)
}

/**
 * Downloads the media of the message a context handles. Resolves undefined when it cannot be
 * downloaded; with `throwOnError`, rejects instead (MediaUnavailableError for a replayed message whose
 * media could not be rebuilt or has expired).
 */
export async function loadMediaOf(
  ctx: { message: { media?: MediaRef } },
  options: { throwOnError?: boolean } = {},
): Promise<Buffer | undefined> {
  const media = ctx.message.media
  const provider = providers.get(ctx)
  try {
    if (!media) throw new ProviderError(ERROR_CODES.NO_MEDIA, 'the message has no media', { retryable: false })
    const reason = unavailable.get(media)
    if (reason) throw reason
    if (!provider?.download)
      throw new ProviderError(ERROR_CODES.DOWNLOAD_UNSUPPORTED, `${provider?.name ?? 'the provider'} cannot download media`, {
        retryable: false,
      })
    try {
      return await provider.download(media)
    } catch (error) {
      // A download the provider's policy refused says why itself, live or replayed.
      if (error instanceof MediaUnavailableError) throw error
      if (rehydrated.has(media))
        throw new MediaUnavailableError(
          'rehydrate-failed',
          `the replayed media could not be downloaded: ${error instanceof Error ? error.message : String(error)}`,
          error,
        )
      throw error
    }
  } catch (error) {
    if (options.throwOnError) throw error
    return undefined
  }
}
