/**
 * The writes applied in memory whose commit has not settled (I4). A read may see them before they
 * are durable, so it waits for their commit, and is made again if a failed commit rolled them back
 * (I5). Counted here, apart from the commits, so `DurableState` asks one question: may this read
 * be answered yet.
 */
export class UncommittedWrites {
  #count = 0
  /** The settling of the latest write's commit (never rejects). */
  #lastSettled: Promise<void> = Promise.resolve()
  /** Failed commits rolled back so far. */
  #rollBacks = 0

  /** Counts a write applied in memory whose commit is `committed`, until `settled()` is called. */
  add(committed: Promise<unknown>): void {
    this.#count++
    this.#lastSettled = committed.then(
      () => {},
      () => {},
    )
  }

  /** The write's caller saw its commit's outcome. */
  settled(): void {
    this.#count--
  }

  /** A failed commit's writes were taken out of memory. */
  rolledBack(): void {
    this.#rollBacks++
  }

  /** Whether every write applied so far is committed: a read is answered at once. */
  get none(): boolean {
    return this.#count === 0
  }

  get rollBacks(): number {
    return this.#rollBacks
  }

  /** Resolves once the latest write applied so far settled (and so every one before it). */
  get lastSettled(): Promise<void> {
    return this.#lastSettled
  }
}
