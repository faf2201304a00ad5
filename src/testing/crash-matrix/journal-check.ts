/** The crash matrix's check of the journal a case leaves: everything settled, the poisoned message dead, content sealed when it should be. */
import type { DurabilityBackend, Journal } from '../../core/durability/journal/backend.js'
import { inboxRecordId } from '../../core/durability/outbox/keys.js'
import { INBOX_STATES, OUTBOX_STATES, recordKey } from '../../core/durability/journal/records.js'
import { SEALED_FIELDS } from '../../core/encryption/record-sealer.js'
import { isSealed } from '../../core/encryption/sealed-text.js'
import { inboxRecord, outboxRecord } from '../conformance/fixtures.js'
import { crashLoopHead } from './crash-loop.js'

/** The scope the workload bot works in. */
export const WORKLOAD_SCOPE = 'default/default/crash-matrix/default'

/** Yesterday's traffic: a done message and its sent reply, long past the workload's retention. */
const EXPIRED = { inbox: 'c-yesterday.1', outbox: 'reply:c-yesterday.1' } as const

/**
 * Journals yesterday's traffic before the first generation, so every generation's retention has
 * something to purge: a crash at 'retention.purge' is reached, and the purge must finish by the end.
 */
export async function journalExpiredTraffic(backend: DurabilityBackend, scopeId: string): Promise<void> {
  await backend.start()
  try {
    const longAgo = (await backend.now()) - 2 * 24 * 3_600_000
    const chatId = 'c-yesterday'
    await backend.journal(scopeId).write('operator.import', [
      {
        kind: 'inbox',
        record: inboxRecord(EXPIRED.inbox, { chatId, state: 'done', createdAt: longAgo, updatedAt: longAgo }),
        expectVersion: 0,
      },
      {
        kind: 'outbox',
        record: outboxRecord(EXPIRED.outbox, { chatId, state: 'sent', createdAt: longAgo, updatedAt: longAgo }),
        expectVersion: 0,
      },
    ])
  } finally {
    await backend.stop()
  }
}

/** Records not yet in a final state: an inbox record pending, processing or failed; a send pending, sending or failed. */
export async function unsettledCounts(journal: Journal): Promise<{ inbox: number; outbox: number }> {
  const inbox = await journal.count('inbox')
  const outbox = await journal.count('outbox')
  return {
    inbox: (inbox.pending ?? 0) + (inbox.processing ?? 0) + (inbox.failed ?? 0),
    outbox: (outbox.pending ?? 0) + (outbox.sending ?? 0) + (outbox.failed ?? 0),
  }
}

/**
 * The journal must end settled: every inbound done (the poisoned one and a crash loop's head dead,
 * nothing else), no send left pending.
 * Sends left unknown are ambiguous even when the crash swallowed their 'durability:ambiguous' event;
 * each is added to `ambiguous` (counted once, as the event would have been).
 */
export async function journalProblems(
  backend: DurabilityBackend,
  scopeId: string,
  ambiguous: Map<string, number>,
  options: { sealed?: boolean; crashLoop?: boolean } = {},
): Promise<string[]> {
  await backend.start()
  try {
    const journal = backend.journal(scopeId)
    for (const found of await journal.list('outbox', { state: 'unknown', limit: 1_000 })) {
      if (!ambiguous.has(found.record.key)) ambiguous.set(found.record.key, 1)
    }
    const problems: string[] = []
    const inbox = await journal.count('inbox')
    const outbox = await journal.count('outbox')
    const { inbox: unsettledInbox, outbox: unsettledOutbox } = await unsettledCounts(journal)
    if (unsettledInbox > 0) problems.push(`inbox not settled: ${JSON.stringify(inbox)}`)
    if (unsettledOutbox > 0) {
      const stuck = (await Promise.all(['pending', 'sending', 'failed'].map((state) => journal.list('outbox', { state, limit: 5 })))).flat()
      problems.push(
        `outbox not settled: ${JSON.stringify(outbox)}: ${stuck.map((f) => JSON.stringify({ ...f.record, payload: undefined, fingerprint: undefined })).join(' ')}`,
      )
    }
    // Only the poisoned message (its store always fails) and a crash loop's head end dead: nothing behind them.
    const mustDie = [inboxRecordId('mock', 'c-poison', 'c-poison.1'), ...(options.crashLoop ? [crashLoopHead()] : [])]
    const dead = (await journal.list('inbox', { state: 'dead', limit: 100 })).map((found) => found.record.id)
    for (const id of mustDie) if (!dead.includes(id)) problems.push(`${id} is not dead`)
    const wrongly = dead.filter((id) => !mustDie.includes(id))
    if (wrongly.length > 0) problems.push(`dead-lettered, though only ${mustDie.join(' and ')} should be: ${wrongly.join(', ')}`)
    const [expiredInbox] = await journal.read('inbox', [EXPIRED.inbox])
    const [expiredOutbox] = await journal.read('outbox', [EXPIRED.outbox])
    if (expiredInbox || expiredOutbox) problems.push("retention left yesterday's expired records in the journal")
    if (options.sealed) problems.push(...(await unsealedContent(journal)))
    return problems
  } finally {
    await backend.stop()
  }
}

/** Records whose content reached the backend in clear although the bot sealed its journal. */
async function unsealedContent(journal: Journal): Promise<string[]> {
  const problems: string[] = []
  for (const [kind, states] of [
    ['inbox', INBOX_STATES],
    ['outbox', OUTBOX_STATES],
  ] as const) {
    for (const state of states) {
      for (const { record } of await journal.list(kind, { state, limit: 1_000 })) {
        const clear = (SEALED_FIELDS[kind] ?? []).filter((field) => {
          const value = (record as unknown as Record<string, unknown>)[field]
          return value !== null && value !== undefined && !isSealed(value)
        })
        if (clear.length > 0) problems.push(`${kind} ${recordKey(kind, record)}: ${clear.join(', ')} in clear`)
      }
    }
  }
  return problems
}
