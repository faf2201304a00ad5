/**
 * Group commit (I6): writes submitted while a commit is in flight share the next one, so N
 * concurrent writers pay for one append and one fsync (or one snapshot rewrite), not N. Commits
 * and exclusive tasks (compaction, close) run one at a time, in submission order.
 *
 * The queue is taken at the end of a turn of the event loop (setImmediate) when the first write
 * arrives, and after a commit that left nothing waiting: the writers a commit answered write again
 * within the turn their answer started, and those writes go in one commit instead of the first
 * alone and the rest behind it. Writes that waited through a commit go at once.
 */

/** Options of `GroupCommit`. */
export interface GroupCommitOptions<T> {
  /** Makes a batch durable; resolves when it is. */
  commit(items: T[]): Promise<void>
  /**
   * Called synchronously when a commit fails, before any promise is rejected, with every item the
   * failure rejects in submission order: the failed batch and everything queued behind it (applied
   * after it, so possibly depending on it; I5).
   */
  onFailure?(items: T[], error: unknown): void
  /** Items in one commit at most (bounds the buffer of one append). @default Infinity */
  batchMax?: number
}

type Entry<T> =
  | { kind: 'item'; item: T; resolve: () => void; reject: (error: unknown) => void }
  | { kind: 'task'; run: () => Promise<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void }

/** A queue that commits items in batches and runs exclusive tasks between them. */
export class GroupCommit<T> {
  readonly #options: GroupCommitOptions<T>
  readonly #queue: Entry<T>[] = []
  #draining = false
  /** Settles after the last entry submitted so far. */
  #tail: Promise<void> = Promise.resolve()

  constructor(options: GroupCommitOptions<T>) {
    this.#options = options
  }

  /** Whether a commit or task is queued or running. */
  get busy(): boolean {
    return this.#draining
  }

  /** Resolves once `item` is in a commit that returned; rejects with that commit's error. */
  submit(item: T): Promise<void> {
    return this.#enqueue<void>((resolve, reject) => ({ kind: 'item', item, resolve, reject }))
  }

  /** Runs `task` alone, after everything submitted before it and before anything submitted after it. */
  exclusive<R>(task: () => Promise<R>): Promise<R> {
    return this.#enqueue<R>((resolve, reject) => ({ kind: 'task', run: task, resolve: resolve as (value: unknown) => void, reject }))
  }

  /** Items submitted but not yet taken into a commit, in submission order. */
  queuedItems(): T[] {
    return this.#queue.flatMap((entry) => (entry.kind === 'item' ? [entry.item] : []))
  }

  /** Resolves once everything submitted so far has committed or failed (never rejects). */
  settled(): Promise<void> {
    return this.#tail
  }

  #enqueue<R>(make: (resolve: (value: R) => void, reject: (error: unknown) => void) => Entry<T>): Promise<R> {
    const promise = new Promise<R>((resolve, reject) => this.#queue.push(make(resolve, reject)))
    this.#tail = promise.then(
      () => {},
      () => {},
    )
    if (!this.#draining) {
      this.#draining = true
      setImmediate(() => void this.#drain())
    }
    return promise
  }

  async #drain(): Promise<void> {
    try {
      // Bounded by the queue: each turn removes at least one entry.
      while (this.#queue.length > 0) {
        const head = this.#queue[0]!
        if (head.kind === 'task') {
          this.#queue.shift()
          await head.run().then(head.resolve, head.reject)
          continue
        }
        await this.#commitBatch()
        // Writes that waited through that commit go at once; with none, wait for the ones it set going.
        if (this.#queue.length === 0) await endOfTurn()
      }
    } finally {
      this.#draining = false
    }
  }

  async #commitBatch(): Promise<void> {
    const batchMax = this.#options.batchMax ?? Number.POSITIVE_INFINITY
    let end = 0
    while (end < this.#queue.length && end < batchMax && this.#queue[end]!.kind === 'item') end++
    const batch = this.#queue.splice(0, end) as Extract<Entry<T>, { kind: 'item' }>[]
    try {
      await this.#options.commit(batch.map((entry) => entry.item))
    } catch (error) {
      const behind = this.#queue.filter((entry) => entry.kind === 'item')
      this.#queue.splice(0, this.#queue.length, ...this.#queue.filter((entry) => entry.kind === 'task'))
      const failed = [...batch, ...behind] as Extract<Entry<T>, { kind: 'item' }>[]
      try {
        this.#options.onFailure?.(
          failed.map((entry) => entry.item),
          error,
        )
      } finally {
        for (const entry of failed) entry.reject(error)
      }
      return
    }
    for (const entry of batch) entry.resolve()
  }
}

/** Resolves once the event loop has run what is already queued in this turn. */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
