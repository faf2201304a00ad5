/** The human view of `botmesh list`: records of both journals with when each is tried next. */
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { RecordPage, RecordSummary } from '../../operator/records.js'
import { duration, errorLine } from './format.js'

/** "in 42s", "due now", "overdue 3s", or "-" for a record that is not waiting to be retried. */
export function nextRetryIn(record: Pick<RecordSummary, 'nextAttemptAt' | 'state'>, now: number): string {
  if (record.nextAttemptAt === null || !['pending', 'failed'].includes(record.state)) return '-'
  const wait = record.nextAttemptAt - now
  if (wait > 0) return `in ${duration(wait)}`
  // A due record is picked up by the next sweep; overdue by much means no bot is sweeping.
  return wait === 0 ? 'due now' : `overdue ${duration(-wait)}`
}

/** A page of the retry queue (or of any states), with how to get the next one. */
export function retryQueueView(now: number) {
  return (page: RecordPage): Block[] => {
    const blocks: Block[] = [
      table(
        [
          { header: 'kind', value: (r: RecordSummary) => r.kind },
          { header: 'id', value: (r) => r.id, maxWidth: 40 },
          { header: 'state', value: (r) => r.state },
          { header: 'attempts', value: (r) => r.attempts, align: 'right' },
          {
            header: 'next retry',
            value: (r) => nextRetryIn(r, now),
            tone: (r) => (r.nextAttemptAt !== null && r.nextAttemptAt < now ? 'yellow' : undefined),
          },
          { header: 'chat', value: (r) => r.chatId, maxWidth: 20 },
          { header: 'last error', value: (r) => errorLine(r.lastError), maxWidth: 50 },
        ],
        page.records,
        '(nothing waits for an attempt)',
      ),
    ]
    if (page.scanLimited) blocks.push({ text: `read ${page.scanned} records without filling the page; more may match`, tone: 'dim' })
    if (page.next) blocks.push({ text: `more: add --after ${page.next}`, tone: 'dim' })
    return blocks
  }
}
