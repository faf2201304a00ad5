/**
 * The counted start/stop of the backends: something shared by several users (a pool, a client, an
 * outbox store), opened by the first `acquire` and closed by the last `release`. One the caller
 * injected is never opened or closed here: it is the caller's.
 */
export class SharedHandle<T> {
  /** Whether the value is ours to open and close. */
  readonly owned: boolean
  #value: T | undefined
  #opening: Promise<T> | undefined
  #users = 0

  constructor(injected: T | undefined) {
    this.owned = injected === undefined
    this.#value = injected
  }

  /** The value; undefined while an owned one is not open. */
  get value(): T | undefined {
    return this.#value
  }

  /** How many acquires are not released yet. */
  get users(): number {
    return this.#users
  }

  /** Takes a share, opening an owned value on the first one; a failed open takes no share. */
  async acquire(open: () => Promise<T>): Promise<void> {
    this.#users++
    if (!this.owned) return
    const opening = (this.#opening ??= open())
    try {
      const value = await opening
      // The last share may have been given back while this was opening; that release closes it.
      if (this.#opening === opening) this.#value = value
    } catch (error) {
      this.#users--
      if (this.#opening === opening) this.#opening = undefined
      throw error
    }
  }

  /** Gives a share back; the last one closes an owned value (once it is open, if it is still opening). */
  async release(close: (value: T) => Promise<void>): Promise<void> {
    if (this.#users === 0) return
    this.#users--
    if (this.#users > 0 || !this.owned) return
    const opening = this.#opening
    this.#value = undefined
    this.#opening = undefined
    const value = await opening?.catch(() => undefined)
    if (value !== undefined) await close(value)
  }
}
