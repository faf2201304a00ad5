/**
 * A bot's store whose content is sealed the way the journal's is: the message log's texts, the
 * flows' checkpoints (where their answers wait) and the per-chat user data. Chats, keys, message
 * ids and times stay clear. Only botmesh's own stores are wrapped (`store.sealable`): a store of
 * yours gets its values in clear, to keep or encrypt as it likes.
 *
 * Each value is bound to its scope, its chat and (user data) its key: one moved to another place
 * does not open there.
 */
import type { Json } from '../durability/journal/kv.js'
import { UnsealedValueError } from './encryption-errors.js'
import type { MessageLogEntry, Store } from '../store/store.js'
import type { KeyRing } from './key-ring.js'
import { isSealed, openText, sealText, type SealedPlace } from './sealed-text.js'

/** How a sealed store treats a value in clear. */
export interface SealedStoreOptions {
  /** Refuse clear values (`UnsealedValueError`) instead of taking them as written before encryption. @default false */
  requireSealed?: boolean
}

/** Where a store value belongs: format 1 names its chat, format 2 its scope and chat too. */
function storePlace(scope: string, what: 'user' | 'checkpoint' | 'log', chatId: string, key?: string): SealedPlace {
  return {
    v1: key === undefined ? `${what}\0${chatId}` : `${what}\0${chatId}\0${key}`,
    v2: JSON.stringify(['store', scope, what, chatId, ...(key === undefined ? [] : [key])]),
  }
}

export class SealedStore implements Store {
  constructor(
    readonly inner: Store,
    private readonly ring: KeyRing,
    private readonly options: SealedStoreOptions = {},
  ) {}

  async start(): Promise<void> {
    await this.inner.start?.()
  }

  async stop(): Promise<void> {
    await this.inner.stop?.()
  }

  async getUser(scope: string, chatId: string, key: string): Promise<Json | undefined> {
    return this.#openJson(
      await this.inner.getUser(scope, chatId, key),
      storePlace(scope, 'user', chatId, key),
      `the user data "${key}" of chat "${chatId}"`,
    )
  }

  setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    return this.inner.setUser(scope, chatId, key, this.#sealJson(value, storePlace(scope, 'user', chatId, key)))
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    return this.#openJson(
      await this.inner.getCheckpoint(scope, chatId),
      storePlace(scope, 'checkpoint', chatId),
      `the checkpoint of chat "${chatId}"`,
    )
  }

  setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    return this.inner.setCheckpoint(scope, chatId, this.#sealJson(checkpoint, storePlace(scope, 'checkpoint', chatId)))
  }

  deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    return this.inner.deleteCheckpoint(scope, chatId)
  }

  appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    const text = entry.text === null ? null : sealText(this.ring, entry.text, storePlace(scope, 'log', entry.chatId))
    return this.inner.appendLog(scope, { ...entry, text })
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    const what = `a message log line of chat "${chatId}"`
    return (await this.inner.listLog(scope, chatId, limit)).map((entry) => {
      if (isSealed(entry.text)) return { ...entry, text: openText(this.ring, entry.text, storePlace(scope, 'log', chatId), what) }
      if (entry.text !== null && this.options.requireSealed) throw new UnsealedValueError(what)
      return entry
    })
  }

  #sealJson(value: Json, place: SealedPlace): Json {
    return sealText(this.ring, JSON.stringify(value), place)
  }

  /** The clear value; a value written before encryption was turned on is clear already (refused under `requireSealed`). */
  #openJson(value: Json | undefined, place: SealedPlace, what: string): Json | undefined {
    if (isSealed(value)) return JSON.parse(openText(this.ring, value, place, what)) as Json
    if (value !== undefined && this.options.requireSealed) throw new UnsealedValueError(what)
    return value
  }
}
