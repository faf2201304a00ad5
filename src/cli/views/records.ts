/** Human views of record lists and of one record. */
import type { Block, Column, Tone } from '../output.js'
import { table } from '../output.js'
import type { RecordPage, RecordSummary } from '../../operator/records.js'
import { sealedLabel } from '../../operator/sealed.js'
import { attemptsText, providerCalls, recordKey, type ShownRecord } from '../../operator/show.js'
import { ago, duration, errorLine, iso } from './format.js'

const STATE_TONES: Record<string, Tone> = {
  dead: 'red',
  failed: 'yellow',
  unknown: 'yellow',
  processing: 'cyan',
  sending: 'cyan',
  done: 'green',
  sent: 'green',
}

/**
 * The columns of a record list; `withKind` adds the kind (the DLQ mixes both). On a narrow
 * terminal the last error is cut first (`show` prints it whole), the id and state last.
 */
export function recordColumns(now: number, withKind: boolean): Column<RecordSummary>[] {
  return [
    ...(withKind ? [{ header: 'kind', value: (r: RecordSummary) => r.kind, priority: 3 }] : []),
    { header: 'id', value: (r) => r.id, whole: true, priority: 4 },
    { header: 'state', value: (r) => r.state, tone: (r) => STATE_TONES[r.state], priority: 4 },
    { header: 'chat', value: (r) => r.chatId, maxWidth: 24, priority: 1 },
    { header: 'attempts', value: (r) => providerCalls(r), align: 'right', priority: 2 },
    { header: 'updated', value: (r) => ago(r.updatedAt, now), priority: 2 },
    { header: 'last error', value: (r) => errorLine(r.lastError), maxWidth: 50, minWidth: 20, priority: 0 },
  ]
}

/** A page of records, with how to get the next one. */
export function recordPageView(now: number, withKind: boolean) {
  return (page: RecordPage): Block[] => [
    table(recordColumns(now, withKind), page.records, '(no records)'),
    ...pageNotes(page).map((text) => ({ text, tone: 'dim' as const })),
  ]
}

/** What a page says after its records: that more may match, and how to get the next page. */
export function pageNotes(page: RecordPage): string[] {
  const notes: string[] = []
  if (page.scanLimited) notes.push(`read ${page.scanned} records without filling the page; more may match`)
  if (page.next) notes.push(`more: add --after ${page.next}`)
  if (page.unsearched) notes.push(unsearchedNote(page.unsearched))
  return notes
}

/** One or more records shown whole, each with why it is not running now. */
export function shownView(now: number) {
  return (shown: ShownRecord[]): Block[] =>
    shown.flatMap(({ kind, version, record, why }) => {
      const id = recordKey(kind, record)
      const lease = record.lease
      const fields: [string, string | number | null][] = [
        [kind === 'inbox' ? 'inbox record' : 'outbox send', id],
        ['state', record.state],
        ['chat', record.chatId],
        ['attempts', attemptsText(record)],
        [
          'next attempt',
          record.nextAttemptAt === null
            ? null
            : `${iso(record.nextAttemptAt)} (${record.nextAttemptAt > now ? `in ${duration(record.nextAttemptAt - now)}` : `${duration(now - record.nextAttemptAt)} ago`})`,
        ],
        ['lease', lease ? `${lease.owner}, token ${lease.token}, expires ${iso(lease.expiresAt)}` : null],
        ['fencing token', record.fencingToken],
        ['last error', errorLine(record.lastError)],
        ['created', iso(record.createdAt)],
        ['updated', `${iso(record.updatedAt)} (${ago(record.updatedAt, now)})`],
        ['version', version],
      ]
      const note = (record as { note?: string }).note
      if (note) fields.push(['note', note])
      if (kind === 'outbox') {
        const send = record as {
          providerMessageId: string | null
          previousPart: string | null
          keySource: string
          inboundId: string | null
        }
        fields.push(
          ['key source', send.keySource],
          ['inbound', send.inboundId],
          ['previous part', send.previousPart],
          ['provider message', send.providerMessageId],
        )
      }
      for (const entry of record.audit ?? [])
        fields.push([`audit ${entry.action}`, `${iso(entry.at)} by ${entry.by}${entry.reason ? `: ${entry.reason}` : ''}`])
      const body = kind === 'inbox' ? (record as { event: unknown }).event : (record as { payload: unknown }).payload
      return [
        { fields },
        { text: `${kind === 'inbox' ? 'event' : 'payload'}: ${sealedLabel(body) ?? JSON.stringify(body)}` },
        { text: `why: ${why}`, tone: 'bold' as const },
      ]
    })
}

/** What a search says of the records it could not read. */
export function unsearchedNote(count: number): string {
  const records = count === 1 ? '1 sealed record was' : `${count} sealed records were`
  return `${records} not searched: their content is encrypted under a key not given (--keys <file> or BOTMESH_ENCRYPTION_KEYS)`
}
