/**
 * A bot's store whose content is sealed the way the journal's is: the message log's texts, the
 * flows' checkpoints (where their answers wait) and the per-chat user data. Chats, keys, message
 * ids and times stay clear. Only botmesh's own stores are wrapped (`store.sealable`): a store of
 * yours gets its values in clear, to keep or encrypt as it likes.
 */
import type { Json } from '../durability/journal/kv.js'
import type { MessageLogEntry, Store } from '../store.js'
import type { KeyRing } from './key-ring.js'
import { isSealed, openText, sealText } from './sealed-text.js'

export class SealedStore implements Store {
  constructor(
    readonly inner: Store,
    private readonly ring: KeyRing,
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
      `user\0${chatId}\0${key}`,
      `the user data "${key}" of chat "${chatId}"`,
    )
  }

  setUser(scope: string, chatId: string, key: string, value: Json): Promise<void> {
    return this.inner.setUser(scope, chatId, key, this.#sealJson(value, `user\0${chatId}\0${key}`))
  }

  async getCheckpoint(scope: string, chatId: string): Promise<Json | undefined> {
    return this.#openJson(await this.inner.getCheckpoint(scope, chatId), `checkpoint\0${chatId}`, `the checkpoint of chat "${chatId}"`)
  }

  setCheckpoint(scope: string, chatId: string, checkpoint: Json): Promise<void> {
    return this.inner.setCheckpoint(scope, chatId, this.#sealJson(checkpoint, `checkpoint\0${chatId}`))
  }

  deleteCheckpoint(scope: string, chatId: string): Promise<void> {
    return this.inner.deleteCheckpoint(scope, chatId)
  }

  appendLog(scope: string, entry: MessageLogEntry): Promise<void> {
    const text = entry.text === null ? null : sealText(this.ring, entry.text, `log\0${entry.chatId}`)
    return this.inner.appendLog(scope, { ...entry, text })
  }

  async listLog(scope: string, chatId: string, limit: number): Promise<MessageLogEntry[]> {
    return (await this.inner.listLog(scope, chatId, limit)).map((entry) =>
      isSealed(entry.text)
        ? { ...entry, text: openText(this.ring, entry.text, `log\0${chatId}`, `a message log line of chat "${chatId}"`) }
        : entry,
    )
  }

  #sealJson(value: Json, place: string): Json {
    return sealText(this.ring, JSON.stringify(value), place)
  }

  /** The clear value; a value written before encryption was turned on is clear already. */
  #openJson(value: Json | undefined, place: string, what: string): Json | undefined {
    return isSealed(value) ? (JSON.parse(openText(this.ring, value, place, what)) as Json) : value
  }
}
