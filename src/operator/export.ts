/**
 * `export`: every inbox and outbox record of the chosen scopes as NDJSON, one record a line with
 * its scope, kind and version, after a header line. Records are read through the state-time
 * index a page at a time, so memory stays flat whatever the journal's size. Heartbeats are not
 * exported: they describe running processes, not data.
 *
 * On a journal a bot is changing, a record may move between states while the export pages
 * through them and be missed or written twice; export a stopped bot's journal for an exact copy.
 */
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import {
  INBOX_STATES,
  OUTBOX_STATES,
  recordIndex,
  recordKey,
  type InboxRecord,
  type OutboxRecord,
} from '../core/durability/journal/records.js'

/** The first line of an export. */
export interface ExportHeader {
  botmesh: 'export'
  format: 1
  backend: string
  exportedAt: number
  scopes: string[]
}

/** Every other line. */
export interface ExportLine {
  scope: string
  kind: 'inbox' | 'outbox'
  version: number
  record: InboxRecord | OutboxRecord
}

/** What an export wrote. */
export interface ExportSummary {
  scopes: string[]
  records: number
  byKind: { inbox: number; outbox: number }
}

/** Records read per round trip. */
export const EXPORT_PAGE = 1_000

/** Writes the header and every record of `scopes` through `emit`, in scope, kind, state and time order. */
export async function exportRecords(
  backend: DurabilityBackend,
  scopes: readonly string[],
  emit: (line: string) => Promise<void>,
  onProgress: (records: number) => void = () => {},
): Promise<ExportSummary> {
  const header: ExportHeader = { botmesh: 'export', format: 1, backend: backend.kind, exportedAt: await backend.now(), scopes: [...scopes] }
  await emit(`${JSON.stringify(header)}\n`)
  const byKind = { inbox: 0, outbox: 0 }
  for (const scope of scopes) {
    const journal = backend.journal(scope)
    for (const [kind, states] of [
      ['inbox', INBOX_STATES],
      ['outbox', OUTBOX_STATES],
    ] as const) {
      for (const state of states) {
        let after: { stateTime: number; key: string } | undefined
        for (;;) {
          const page = await journal.list(kind, { state, after, limit: EXPORT_PAGE })
          for (const { record, version } of page) {
            const line: ExportLine = { scope, kind, version, record }
            await emit(`${JSON.stringify(line)}\n`)
            byKind[kind]++
            after = { stateTime: recordIndex(kind, record).stateTime, key: recordKey(kind, record) }
          }
          onProgress(byKind.inbox + byKind.outbox)
          if (page.length < EXPORT_PAGE) break
        }
      }
    }
  }
  return { scopes: [...scopes], records: byKind.inbox + byKind.outbox, byKind }
}
