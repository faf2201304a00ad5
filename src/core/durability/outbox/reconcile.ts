/**
 * Settling an ambiguous send from the channel's own word. A crash between the provider call and
 * the `sent` mark leaves a send whose outcome the outbox cannot know; a channel that echoes a token
 * of ours on its status callbacks (the outbox key, `IProvider.echoesOutboxKey`) can tell. A report
 * naming a send that a crash left in flight, or already marked `unknown`, or failed after a call
 * the channel in fact accepted, marks it `sent` with the channel's message id; a send found
 * ambiguous waits up to `outbox.reconcileMs` for such a report before `onAmbiguous` applies.
 * Without an echoing provider nothing here runs and the contract's behaviour is unchanged.
 */
import type { DeliveryReport } from '../../provider/provider.js'
import type { Versioned } from '../journal/backend.js'
import type { DurabilityEngine } from '../engine.js'
import { LIMITS } from '../limits.js'
import type { Delivery } from './outbox-attempt.js'
import type { OutboxRecord } from '../journal/records.js'

/** Reports of sends still in flight when they came, kept for the sweeper in case their process died. */
class HeldReports {
  readonly #byKey = new Map<string, DeliveryReport>()
  /** When this engine first settled sends: a restarted bot gives the channel `reconcileMs` from here. */
  constructor(readonly since: number) {}

  keep(report: DeliveryReport): void {
    this.#byKey.delete(report.outboxKey)
    this.#byKey.set(report.outboxKey, report)
    // The oldest go first: a report is only needed while its send's lease runs.
    for (const key of this.#byKey.keys()) {
      if (this.#byKey.size <= LIMITS.deliveryReportsHeldMax) break
      this.#byKey.delete(key)
    }
  }

  take(key: string): DeliveryReport | undefined {
    const report = this.#byKey.get(key)
    this.#byKey.delete(key)
    return report
  }
}

const held = new WeakMap<DurabilityEngine, HeldReports>()

function reportsOf(engine: DurabilityEngine): HeldReports {
  let reports = held.get(engine)
  if (!reports) held.set(engine, (reports = new HeldReports(engine.now())))
  return reports
}

/** A delivery report from the provider: settles its send if it was left ambiguous, or keeps it while it is in flight. */
export async function reportDelivery(engine: DurabilityEngine, delivery: Delivery, report: DeliveryReport): Promise<void> {
  const [found] = await engine.journal.read('outbox', [report.outboxKey])
  if (!found) return
  if (settleable(engine, found.record)) {
    await markReconciled(engine, delivery, found, report)
    return
  }
  if (found.record.state === 'sending') reportsOf(engine).keep(report)
}

/**
 * For a send found ambiguous: true once a report settled it, false while it waits for one, and
 * undefined when `onAmbiguous` decides (no echoing provider, `reconcileMs` 0, or the wait is over).
 */
export async function reconcileAmbiguous(
  engine: DurabilityEngine,
  delivery: Delivery,
  found: Versioned<OutboxRecord>,
): Promise<boolean | undefined> {
  const { reconcileMs } = engine.config.outbox
  if (!delivery.echoesOutboxKey || reconcileMs <= 0) return undefined
  const reports = reportsOf(engine)
  const report = reports.take(found.record.key)
  if (report) return markReconciled(engine, delivery, found, report)
  return engine.now() < Math.max(found.record.updatedAt, reports.since) + reconcileMs ? false : undefined
}

/** Whether a report may settle the record: no live attempt is about to record it itself. */
function settleable(engine: DurabilityEngine, record: OutboxRecord): boolean {
  if (record.state === 'unknown' || record.state === 'failed') return true
  return record.state === 'sending' && engine.leaseIsOver(record.lease, 'outbox', record.key) && !engine.unstarted.neverCalled(record)
}

async function markReconciled(
  engine: DurabilityEngine,
  delivery: Delivery,
  found: Versioned<OutboxRecord>,
  report: DeliveryReport,
): Promise<boolean> {
  const { record } = found
  const now = engine.now()
  const status = report.status ? ` "${report.status}"` : ''
  const sent: OutboxRecord = {
    ...record,
    state: 'sent',
    lease: null,
    nextAttemptAt: null,
    providerMessageId: report.messageId,
    lastError: null,
    updatedAt: now,
    audit: [
      ...(record.audit ?? []),
      { action: 'reconciled', by: 'channel', at: now, reason: `settled from ${record.state} by the channel's status${status} naming it` },
    ],
  }
  const [result] = await engine.journal.write('outbox.markSent', [{ kind: 'outbox', record: sent, expectVersion: found.version }])
  if (!result?.ok) return false
  engine.metrics.increment('outboxReconciled')
  engine.events.reconciled?.({ key: record.key, chatId: record.chatId, messageId: report.messageId })
  try {
    await delivery.afterSend(sent, report.messageId)
  } catch (error) {
    engine.events.error(error)
  }
  return true
}
