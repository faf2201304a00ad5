/** Runs tasks one at a time per chat, in the order they were queued; chats run in parallel. */
export class ChatQueue {
  readonly #tails = new Map<string, Promise<unknown>>()

  run<T>(chatId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(chatId) ?? Promise.resolve()
    const result = previous.then(task, task)
    const tail = result.catch(() => undefined)
    this.#tails.set(chatId, tail)
    void tail.then(() => {
      if (this.#tails.get(chatId) === tail) this.#tails.delete(chatId)
    })
    return result
  }
}
