/**
 * The lines of the report overlays (pure, from a snapshot): dead letters grouped by error, with
 * the command that retries a group, and the retry queue with when each record is tried next,
 * under the failures per minute.
 */
import type { ErrorGroup } from '../../operator/error-groups.js'
import type { RecordSummary } from '../../operator/records.js'
import { escapeControls } from '../../operator/terminal-text.js'
import { duration, wrap } from './format.js'
import type { Snapshot } from '../io/snapshot.js'
import type { ReportId } from '../state/model.js'

/** A report: its title line and one line per row (the offset scrolls the rows; a row may wrap). */
export interface Report {
  title: string
  header: string
  rows: string[]
}

export function reportOf(report: ReportId, snapshot: Snapshot | undefined, now: number): Report {
  if (!snapshot)
    return { title: report === 'errors' ? 'Dead letters by error' : 'Retry queue', header: '', rows: ['unknown: nothing read yet'] }
  return report === 'errors' ? errorsReport(snapshot, now) : retriesReport(snapshot, now)
}

/**
 * A row as the lines it takes at `width`: whole when it fits, else what it is, then each part after
 * a ` · ` (the command that retries a group, the last error) on lines of its own under it, wrapped
 * rather than cut so the command can be copied whole.
 */
export function rowLines(raw: string, width: number): string[] {
  const row = escapeControls(raw)
  if (row.length <= width) return [row]
  const [head = '', ...parts] = row.split(' · ')
  const indent = width >= 40 ? ' '.repeat(ROW_INDENT) : ''
  return [
    ...(head.length <= width ? [head] : wrap(head, width)),
    ...parts.flatMap((part) => wrap(`· ${part}`, width - indent.length).map((line) => indent + line)),
  ]
}

/** Where a wrapped row's continuation starts: under the code column (errors) or the kind (retries). */
const ROW_INDENT = 8

function errorsReport(snapshot: Snapshot, now: number): Report {
  const { groups, scanned, scanLimited } = snapshot.errorGroups
  const total = groups.reduce((sum, group) => sum + group.count, 0)
  const partial = scanLimited ? ` (the first ${scanned} read)` : ''
  return {
    title: `Dead letters by error  ${total} in ${groups.length} group(s)${partial}`,
    header: `${'count'.padStart(6)}  ${'code'.padEnd(20)} ${'last seen'.padEnd(10)} message shape · then`,
    rows: groups.length === 0 ? ['none'] : groups.map((group) => errorRow(group, now)),
  }
}

function errorRow(group: ErrorGroup, now: number): string {
  const verb = group.kind === 'inbox' ? 'replay' : 'retry'
  const by = group.code ? `--error-code ${group.code}` : `--error-group ${group.group}`
  const seen = `${duration(Math.max(0, now - group.lastSeenAt))} ago`
  return `${String(group.count).padStart(6)}  ${(group.code ?? '-').padEnd(20)} ${seen.padEnd(10)} ${group.shape} · botmesh ${verb} --all-dead ${by}`
}

function retriesReport(snapshot: Snapshot, now: number): Report {
  const { heartbeats, journal } = snapshot.perMinute
  const bots = heartbeats
    ? `bots ${heartbeats.failuresPerMinute} fail/min of ${heartbeats.throughputPerMinute}/min`
    : 'bots: no live instance'
  // The journal's figure first: it is known even when no bot reports, and survives 80 columns.
  return {
    title: `Retry queue  ${snapshot.retryQueue.length} waiting · last min ${journal.failed} failed, ${journal.dead} dead · ${bots}`,
    header: `${'next retry'.padEnd(14)} ${'kind'.padEnd(7)} ${'attempts'.padStart(8)}  id · last error`,
    rows:
      snapshot.retryQueue.length === 0
        ? ['none: nothing waits for an attempt']
        : snapshot.retryQueue.map((record) => retryRow(record, now)),
  }
}

function retryRow(record: RecordSummary, now: number): string {
  const at = record.nextAttemptAt
  const when = at === null ? '-' : at > now ? `in ${duration(at - now)}` : `overdue ${duration(now - at)}`
  const error = record.lastError ? `${record.lastError.code ? `${record.lastError.code}: ` : ''}${record.lastError.message}` : '-'
  return `${when.padEnd(14)} ${record.kind.padEnd(7)} ${String(record.attempts).padStart(8)}  ${record.id} · ${error}`
}
