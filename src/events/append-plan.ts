/**
 * The append verb as a plan: new records get the next sequences, an id already journaled answers
 * with the stored record (appends are idempotent by id). The bot's own channel and id prefix are
 * reserved here, the one place app events enter.
 */
import { randomUUID } from 'node:crypto'
import { ConfigError } from '../core/errors/errors.js'
import type { PlacedOp } from '../crash-safe-file/pending-writes.js'
import { assertApplied, findEntry, type Plan } from './core.js'
import type { AppendInput, AppendResult } from './journal.js'
import { recordOf, type EventRecord } from './record.js'
import { putRecordOp, takeSeqs } from './record-ops.js'

/** The channel of the bot's inbound records (eventsDurability): no app event may use it. */
export const DURABLE_CHANNEL = 'botwa:durable'
/** Ids of the bot's records start with this; no app event may. */
export const DURABLE_ID_PREFIX = 'botwa:'

export function appendPlan(inputs: readonly AppendInput[], now: number): Plan<AppendResult[]> {
  const checked = inputs.map(checkAppendInput)
  return (state) => {
    const answers: AppendResult[] = []
    const fresh = new Map<string, EventRecord>()
    const seqs = takeSeqs(state, checked.length)
    const ops: PlacedOp[] = []
    for (const input of checked) {
      const id = input.id ?? randomUUID()
      const stored = fresh.has(id) ? undefined : findEntry(state, id)
      const existing = fresh.get(id) ?? (stored && recordOf(stored.entry))
      if (existing) {
        answers.push({ appended: false, record: existing })
        continue
      }
      const record: EventRecord = {
        id,
        seq: seqs.first + fresh.size,
        channel: input.channel ?? null,
        scope: input.scope ?? null,
        eventType: input.eventType,
        payload: input.payload ?? null,
        state: 'pending',
        attempts: 0,
        availableAt: input.availableAt ?? null,
        lease: null,
        fencingToken: 0,
        lastError: null,
        createdAt: now,
        updatedAt: now,
        version: 1,
      }
      fresh.set(id, record)
      ops.push(putRecordOp(record, 0))
      answers.push({ appended: true, record })
    }
    if (fresh.size > 0) ops.push(seqs.op)
    return {
      ops,
      result(results) {
        assertApplied(results, 'append')
        return answers.map((answer) => ({ appended: answer.appended, record: structuredClone(answer.record) }))
      },
    }
  }
}

function checkAppendInput(input: AppendInput): AppendInput {
  if (typeof input?.eventType !== 'string' || input.eventType === '') throw new ConfigError('append: eventType must be a non-empty string')
  if (input.id !== undefined && (typeof input.id !== 'string' || input.id === ''))
    throw new ConfigError('append: id must be a non-empty string')
  if (input.channel !== undefined && input.channel !== null && (typeof input.channel !== 'string' || input.channel === '')) {
    throw new ConfigError('append: channel must be a non-empty string or null')
  }
  if (input.scope !== undefined && input.scope !== null && (typeof input.scope !== 'string' || input.scope === '')) {
    throw new ConfigError('append: scope must be a non-empty string or null')
  }
  if (input.channel === DURABLE_CHANNEL || input.id?.startsWith(DURABLE_ID_PREFIX)) {
    throw new ConfigError(
      `append: the channel "${DURABLE_CHANNEL}" and ids starting with "${DURABLE_ID_PREFIX}" belong to the bot (eventsDurability)`,
    )
  }
  return input
}
