/**
 * `botmesh doctor` for a SQLite file: the checks of its folder (common/file-system-doctor.ts), and
 * the journal mode and `synchronous` setting a connection has once the store opened it (connection.ts
 * sets WAL and FULL). They are read from a database of the doctor's own in the same folder, opened
 * the way the store opens its file, so the operator's file is never opened, locked or changed, and
 * a folder where WAL cannot work (some network file systems) shows here before a bot fails on it.
 */
import { randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { doctorCheck, guarded, type DoctorCheck, type DoctorLimits } from '../common/doctor.js'
import { fileSystemChecks, journalDirectory } from '../common/file-system-doctor.js'
import { SQLiteConnection } from './connection.js'

/** `PRAGMA synchronous`'s numbers. */
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA']

/** Every check of a SQLite journal at `file`. */
export async function diagnoseSqlite(file: string, limits: DoctorLimits): Promise<DoctorCheck[]> {
  const folder = await fileSystemChecks(file, limits)
  return [...folder, ...(await guarded('journal_mode', () => openedSettings(journalDirectory(file).existing)))]
}

async function openedSettings(directory: string): Promise<DoctorCheck[]> {
  const probe = join(directory, `.botmesh-doctor-${process.pid}-${randomBytes(4).toString('hex')}.db`)
  const connection = new SQLiteConnection({ file: probe })
  const holder = {}
  try {
    await connection.acquire(holder, 'botmesh doctor', 'journal')
  } catch (error) {
    await removeDatabase(probe)
    return [
      doctorCheck(
        'journal_mode',
        'fail',
        `a SQLite file opened as the store opens one failed in ${directory}: ${(error as Error).message}`,
        'Keep the file on a local disk',
      ),
    ]
  }
  try {
    const db = connection.database(holder, 'botmesh doctor')
    const mode = String(db.pragma('journal_mode', { simple: true }))
    const synchronous = Number(db.pragma('synchronous', { simple: true }))
    return [journalModeCheck(mode), synchronousCheck(synchronous)]
  } finally {
    connection.release(holder)
    await removeDatabase(probe)
  }
}

function journalModeCheck(mode: string): DoctorCheck {
  if (mode === 'wal') return doctorCheck('journal_mode', 'ok', 'wal, as the store opens its file: readers never block the writer')
  return doctorCheck('journal_mode', 'fail', `"${mode}" where the store sets wal`, 'Keep the file on a local disk')
}

function synchronousCheck(level: number): DoctorCheck {
  const name = SYNCHRONOUS[level] ?? String(level)
  if (level >= 2)
    return doctorCheck('synchronous', 'ok', `${name}, as the store opens its file: every commit fsyncs the WAL before it returns`)
  return doctorCheck(
    'synchronous',
    'fail',
    `${name}: a power loss can roll back commits the store took as done`,
    'The store sets FULL on every connection; report this as a botmesh bug',
  )
}

async function removeDatabase(file: string): Promise<void> {
  await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${file}${suffix}`, { force: true }).catch(() => {})))
}
