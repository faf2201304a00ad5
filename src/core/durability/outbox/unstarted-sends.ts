/**
 * Sends this run of the bot journaled in state `sending` (under its own lease) and has not yet
 * handed to the provider. When the journal write of such a send failed although it landed (the
 * server died before it answered), the record says `sending` but nobody called the provider: the
 * send is not ambiguous, and may go out now instead of waiting for its lease and being taken for a
 * send cut short by a crash (and, with `onAmbiguous: 'skip'`, dropped).
 *
 * Forgetting an entry is always safe (the record is then treated as possibly sent), so the set is
 * bounded by dropping its oldest entries.
 */
import type { OutboxRecord } from '../journal/records.js'
import { LIMITS } from '../limits.js'

export class UnstartedSends {
  readonly #keys = new Set<string>()

  constructor(private readonly incarnation: string) {}

  /** Before the journal write of a send this run will deliver itself. */
  journaling(key: string): void {
    this.#keys.add(key)
    if (this.#keys.size > LIMITS.unstartedSendsMax) this.#keys.delete(this.#keys.values().next().value!)
  }

  /** Right before the provider is called for `key` (under any token). */
  calling(key: string): void {
    this.#keys.delete(key)
  }

  /** Whether `record` is `sending` under this run's own lease, and the provider was certainly never called for it. */
  neverCalled(record: OutboxRecord): boolean {
    return record.state === 'sending' && record.lease?.incarnation === this.incarnation && this.#keys.has(record.key)
  }
}
