/**
 * `WriteBatcher`, SQLite's group commit: write calls made while the event loop is busy (the
 * journals' and the store's alike) are queued and committed together, in one transaction and so
 * one fsync, on the next turn of the loop. Each call keeps its own outcome: the committer
 * (batch-commit.ts) makes sure one call's failure rolls back that call only.
 *
 * better-sqlite3 is synchronous, so a commit never overlaps another in this process; what the
 * queue buys is fewer fsyncs when many messages are in flight. (The file journals' group commit,
src/crash-safe-file/group-commit.ts, is a different thing: an async queue of commits.)
 */

/** What became of one call of a committed batch: its output, or the error that rolled back that call alone. */
export type CallOutcome<O> = { output: O } | { failed: unknown }

/**
 * Commits a batch of inputs in one transaction: one outcome per input, in order. Throws when the
 * transaction as a whole failed (nothing of the batch was committed).
 */
export type BatchCommitter<I, O> = (inputs: readonly I[]) => CallOutcome<O>[]

interface Queued<I, O> {
  input: I
  size: number
  resolve(output: O): void
  reject(error: unknown): void
}

/** Queues calls and commits them in batches of at most `maxSize` (a single larger call goes alone). */
export class WriteBatcher<I, O> {
  readonly #commit: BatchCommitter<I, O>
  readonly #maxSize: number
  #queue: Queued<I, O>[] = []
  #scheduled: NodeJS.Immediate | undefined

  constructor(commit: BatchCommitter<I, O>, maxSize: number) {
    this.#commit = commit
    this.#maxSize = maxSize
  }

  /** Queues `input` for the next commit; resolves with its output once that commit is durable. */
  submit(input: I, size: number): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ input, size, resolve, reject })
      this.#scheduled ??= setImmediate(() => {
        this.#scheduled = undefined
        this.flush()
      })
    })
  }

  /** How many calls wait for a commit. */
  get pending(): number {
    return this.#queue.length
  }

  /** Commits everything queued now, synchronously (before a read, and before the connection closes). */
  flush(): void {
    if (this.#scheduled) {
      clearImmediate(this.#scheduled)
      this.#scheduled = undefined
    }
    while (this.#queue.length > 0) this.#commitBatch(this.#takeBatch())
  }

  #takeBatch(): Queued<I, O>[] {
    let size = 0
    let count = 0
    while (count < this.#queue.length && (count === 0 || size + this.#queue[count]!.size <= this.#maxSize)) {
      size += this.#queue[count]!.size
      count++
    }
    return this.#queue.splice(0, count)
  }

  #commitBatch(batch: Queued<I, O>[]): void {
    let outcomes: CallOutcome<O>[]
    try {
      outcomes = this.#commit(batch.map((call) => call.input))
    } catch (error) {
      for (const call of batch) call.reject(error)
      return
    }
    batch.forEach((call, index) => {
      const outcome = outcomes[index]!
      if ('failed' in outcome) call.reject(outcome.failed)
      else call.resolve(outcome.output)
    })
  }
}
