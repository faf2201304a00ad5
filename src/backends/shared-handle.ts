/**
 * A connection (a pool, a client) shared by several users: the first `acquire` opens it, the last
 * `release` closes it. One the caller injected is never opened or closed here: it is the caller's.
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
    this.#opening ??= open()
    try {
      this.#value = await this.#opening
    } catch (error) {
      this.#users--
      this.#opening = undefined
      throw error
    }
  }

  /** Gives a share back; the last one closes an owned value. */
  async release(close: (value: T) => Promise<void>): Promise<void> {
    if (this.#users === 0) return
    this.#users--
    if (this.#users > 0 || !this.owned) return
    const value = this.#value
    this.#value = undefined
    this.#opening = undefined
    if (value !== undefined) await close(value)
  }
}
