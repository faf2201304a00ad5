/**
 * Reading a journal's files as far as they are sound, without refusing and without writing: what
 * `verifyJournal` reports and `salvageJournal` rescues. `open()` uses the strict readers instead.
 */
import { logPathOf, scanAppendLogPartial, type LogRecord } from '../../crash-safe-file/append-log.js'
import { decodeChanges, type Change, type PlacedEntry } from '../../crash-safe-file/changes.js'
import type { FileSystem } from '../../crash-safe-file/fs.js'
import { scanSnapshot, type Damage, type SnapshotHeader } from '../../crash-safe-file/snapshot-format.js'

/** What one file holds, as far as it could be read. */
export interface FileInspection {
  file: string
  exists: boolean
  bytes: number
  /** The first damage: where reading had to stop (line 0 when the file as a whole is unusable). */
  damage: Damage | undefined
}

/** A journal's snapshot and log, read as far as they are sound. */
export interface JournalInspection {
  snapshot: FileInspection & { header: SnapshotHeader | undefined; entries: PlacedEntry[] }
  log: FileInspection & {
    /** Sound records up to the damage, with their changes. */
    records: (LogRecord & { changes: Change[] })[]
    /** Complete lines from the damaged one on, which a salvage loses. */
    linesLost: number
    tornTail: { offset: number; bytes: number } | undefined
  }
}

/** Reads `path` and `<path>.log` as far as they are sound. Changes nothing. */
export async function inspectJournal(fs: FileSystem, path: string): Promise<JournalInspection> {
  const snapshotFile = await readWhole(fs, path, false)
  const snapshotScan = snapshotFile.content ? scanSnapshot(snapshotFile.content) : undefined
  const snapshot = {
    file: path,
    exists: snapshotFile.exists,
    bytes: snapshotFile.content?.length ?? 0,
    damage: snapshotFile.damage ?? snapshotScan?.damage,
    header: snapshotScan?.header,
    entries: snapshotScan?.entries ?? [],
  }
  const logPath = logPathOf(path)
  const logFile = await readWhole(fs, logPath, true)
  const scan = logFile.content ? scanAppendLogPartial(logFile.content) : undefined
  const records: JournalInspection['log']['records'] = []
  let damage = logFile.damage ?? scan?.damage
  const logSeq = snapshot.header?.logSeq ?? 0
  for (const record of scan?.records ?? []) {
    if (records.length === 0 && record.seq > logSeq + 1 && (snapshot.header || !snapshot.exists)) {
      damage = {
        line: record.line,
        offset: record.offset,
        detail: `the log starts at sequence ${record.seq}, the snapshot holds up to ${logSeq}: records are missing`,
      }
      break
    }
    const changes = decodeChanges(record.payload)
    if (typeof changes === 'string') {
      damage = { line: record.line, offset: record.offset, detail: changes }
      break
    }
    records.push({ ...record, changes })
  }
  const totalLines = logFile.content ? countLines(logFile.content) : 0
  const log = {
    file: logPath,
    exists: logFile.exists,
    bytes: logFile.content?.length ?? 0,
    damage,
    records,
    linesLost: damage ? totalLines - Math.max(damage.line, 1) + 1 : 0,
    tornTail: damage ? undefined : scan?.tornTail,
  }
  return { snapshot, log }
}

async function readWhole(
  fs: FileSystem,
  path: string,
  allowEmpty: boolean,
): Promise<{ exists: boolean; content?: Buffer; damage?: Damage }> {
  const stat = await fs.stat(path)
  if (!stat) return { exists: false }
  const whole = (detail: string) => ({ exists: true, damage: { line: 0, offset: 0, detail } })
  if (stat.isDirectory) return whole('is a directory, expected a journal file')
  if (!stat.isFile) return whole('is not a regular file')
  const content = await fs.readFile(path)
  if (content.length === 0 && !allowEmpty) return whole('is empty (0 bytes)')
  return { exists: true, content }
}

function countLines(content: Buffer): number {
  let lines = 0
  for (let at = content.indexOf(0x0a); at !== -1; at = content.indexOf(0x0a, at + 1)) lines++
  return lines
}
