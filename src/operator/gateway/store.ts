/**
 * The bot's store beside a journal, where the backend URL names a file that holds one: a SQLite
 * file keeps the store's tables next to the `durable` table. Opened for reading by tools that run
 * a bot's code against what it keeps (`botmesh shadow`); nothing here writes to it.
 */
import type { Store } from '../../core/store/store.js'
import type { BackendTarget } from './backend-url.js'

/** An opened store and how to let go of it. */
export interface OpenedStore {
  /** Started. */
  readonly store: Store
  /** Stops it. */
  close(): Promise<void>
}

/** The store the target's file holds, started; undefined where the backend holds none (file, events, redis, postgres URLs). */
export async function openStoreOf(target: BackendTarget): Promise<OpenedStore | undefined> {
  if (target.throwaway || target.kind !== 'sqlite') return undefined
  const { SQLiteStore } = await import('../../backends/sqlite/index.js')
  const store = new SQLiteStore({ file: target.path })
  await store.start()
  return { store, close: () => store.stop() }
}
