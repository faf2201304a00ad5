/**
 * Loads better-sqlite3 on first use, so that importing botmesh (or even `botmesh/sqlite-store`)
 * never loads the native driver: only opening a SQLite file does.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { DriverMissingError } from '../../core/errors.js'

/** The better-sqlite3 `Database` constructor. */
export type DatabaseConstructor = typeof BetterSqlite3

let loading: Promise<DatabaseConstructor> | undefined

/** The driver's constructor; rejects with `DRIVER_MISSING` (saying what to install) when it is not installed. */
export function loadDriver(backend: string): Promise<DatabaseConstructor> {
  loading ??= import('better-sqlite3').then(
    (module) => (module as { default: DatabaseConstructor }).default,
    (error: unknown) => {
      loading = undefined
      const code = (error as { code?: string }).code
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new DriverMissingError('better-sqlite3', backend, error)
      throw error
    },
  )
  return loading
}
