/** One settled promise for every idle chat: a task of an idle chat needs no promise of its own to wait on. */
const IDLE: Promise<unknown> = Promise.resolve()

/** Runs tasks one at a time per chat, in the order they were queued; chats run in parallel. */
export class ChatQueue {
  readonly #tails = new Map<string, Promise<unknown>>()

  /** Whether a task of the chat is queued or running. */
  busy(chatId: string): boolean {
    return this.#tails.has(chatId)
  }

  run<T>(chatId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(chatId) ?? IDLE
    const result = previous.then(task, task)
    // The tail never rejects, and forgets the chat once nothing follows it (two promises a task).
    const settled = (): void => {
      if (this.#tails.get(chatId) === tail) this.#tails.delete(chatId)
    }
    const tail: Promise<void> = result.then(settled, settled)
    this.#tails.set(chatId, tail)
    return result
  }
}
