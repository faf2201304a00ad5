/**
 * Loads better-sqlite3 on first use, so that importing botmesh (or even `botmesh/sqlite-store`)
 * never loads the native driver: only opening a SQLite file does.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { loadDriver as loadPackage } from '../../core/platform/driver.js'

/** The better-sqlite3 `Database` constructor. */
export type DatabaseConstructor = typeof BetterSqlite3

let loading: Promise<DatabaseConstructor> | undefined

/** The driver's constructor; rejects with `DRIVER_MISSING` (saying what to install) when it is not installed. */
export function loadDriver(backend: string): Promise<DatabaseConstructor> {
  loading ??= loadPackage({ packageName: 'better-sqlite3', neededBy: backend, load: () => import('better-sqlite3') }).then(
    (module) => (module as { default: DatabaseConstructor }).default,
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}
