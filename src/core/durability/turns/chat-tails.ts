/**
 * The last unfinished message of each chat in this process: a message admitted next is journaled
 * with it as its `after` (records.ts), the link a takeover follows so that it runs a chat's
 * messages head first, never a later one while an earlier one is still held elsewhere.
 */
export class ChatTails {
  readonly #tails = new Map<string, string>()

  /** `id` joins the end of its chat's lane; resolves to the message it queues behind, if any. */
  enter(chatId: string, id: string): string | null {
    const previous = this.#tails.get(chatId)
    this.#tails.set(chatId, id)
    return previous === undefined || previous === id ? null : previous
  }

  /** `id` is finished (or was never journaled): a later message of the chat no longer queues behind it. */
  leave(chatId: string, id: string, previous: string | null = null): void {
    if (this.#tails.get(chatId) !== id) return
    if (previous === null) this.#tails.delete(chatId)
    else this.#tails.set(chatId, previous)
  }
}
