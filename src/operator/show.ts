/**
 * `show`: a whole record, and in words why it is not running now (backing off, leased, waiting
 * behind an earlier part, dead and why, done). The engine's settings (maxAttempts, retries) live
 * in the bot, not the journal: the attempt budget comes from the operator's flags, else from a
 * live instance's heartbeat (which carries its limits), else it is not known and not stated.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import type { InboxRecord, OutboxRecord } from '../core/durability/journal/records.js'
import { ERROR_CODES, RecordNotFoundError } from '../core/errors/errors.js'
import { listInstances } from './instances.js'
import type { WorkKind } from './records.js'
import { sealedUnder, sealedWhy } from './sealed.js'

/** A record's key in its journal (an inbound's id, a send's key), for the views that name it. */
export { recordKey } from '../core/durability/journal/records.js'

/** A record found by id or key, with its explanation. */
export interface ShownRecord {
  kind: WorkKind
  version: number
  record: InboxRecord | OutboxRecord
  /** Why the record is not running now, in one or two sentences. */
  why: string
  /** Outbox: the earlier part it waits behind, with that part's state. */
  previousPart?: { key: string; state: string | null }
  /** The encryption key its content is sealed under, when the keys given did not open it. */
  sealedUnder?: string
}

/** Run budgets the explanation counts against (undefined: not known, so "attempt n" without "of m"). */
export interface AttemptBudget {
  /** inbox.maxAttempts. */
  inboxMaxAttempts: number | undefined
  /** outbox.retries + 1 provider calls. */
  outboxCalls: number | undefined
}

/** No budget known: the explanation gives the attempt's number only. */
export const UNKNOWN_BUDGET: AttemptBudget = { inboxMaxAttempts: undefined, outboxCalls: undefined }

/**
 * The budget that applies: each limit from the operator's flag, else from the live instances'
 * heartbeats when they agree (replicas configured differently leave it unknown), else unknown.
 */
export async function budgetOf(journal: Journal, now: number, flags: Partial<AttemptBudget>): Promise<AttemptBudget> {
  const live = (await listInstances(journal, now)).flatMap((instance) => (instance.limits ? [instance.limits] : []))
  const agreed = <T>(values: T[]): T | undefined =>
    values.length > 0 && values.every((value) => value === values[0]) ? values[0] : undefined
  const retries = agreed(live.map((limits) => limits.outboxRetries))
  return {
    inboxMaxAttempts: flags.inboxMaxAttempts ?? agreed(live.map((limits) => limits.inboxMaxAttempts)),
    outboxCalls: flags.outboxCalls ?? (retries === undefined ? undefined : retries + 1),
  }
}

/** Finds `id` among the kinds (inbox ids, outbox keys); throws `RecordNotFoundError` when none has it. */
export async function showRecord(
  journal: Journal,
  id: string,
  kinds: readonly WorkKind[],
  now: number,
  budget: AttemptBudget = UNKNOWN_BUDGET,
): Promise<ShownRecord[]> {
  const shown: ShownRecord[] = []
  for (const kind of kinds) {
    const [found] = await journal.read(kind, [id])
    if (!found) continue
    if (kind === 'inbox') {
      const record = found.record as InboxRecord
      shown.push({ kind, version: found.version, record, why: whyInbox(record, now, budget) })
    } else {
      const record = found.record as OutboxRecord
      const previous = record.previousPart ? (await journal.read('outbox', [record.previousPart]))[0] : undefined
      const previousPart = record.previousPart ? { key: record.previousPart, state: previous?.record.state ?? null } : undefined
      shown.push({
        kind,
        version: found.version,
        record,
        why: whyOutbox(record, now, budget, previousPart) + (record.keySource === 'explicit' ? EXPLICIT_KEY : ''),
        ...(previousPart && { previousPart }),
      })
    }
  }
  if (shown.length === 0) throw new RecordNotFoundError(kinds.join(' or '), id)
  return shown.map((one) => {
    const keyId = sealedUnder(one.kind, one.record)
    return keyId === undefined ? one : { ...one, why: `${one.why} ${sealedWhy(keyId)}`, sealedUnder: keyId }
  })
}

/** Why an inbound record is not running now. */
export function whyInbox(record: InboxRecord, now: number, budget: AttemptBudget): string {
  const next = `attempt ${record.attempts + 1}${ofBudget(budget.inboxMaxAttempts)}`
  switch (record.state) {
    case 'pending':
    case 'failed':
      return waiting(record, now, next, 'replayed')
    case 'processing':
      return leased(record, now, 'a handler is running it')
    case 'done':
      return `done at ${iso(record.updatedAt)}: it was handled; nothing runs it again unless an operator replays it (botmesh replay ${record.id}).`
    case 'dead':
      return `dead since ${iso(record.updatedAt)} after ${record.attempts} run(s)${because(record)}; botmesh replay ${record.id} runs it again with a fresh budget.`
  }
}

/** What an explicit key means, said with every send journaled under one. */
const EXPLICIT_KEY =
  ' Its key was given by the caller (explicit): it names this one send of the bot, whatever the chat, so a send to another chat under the same key is answered from this record and nothing goes there (the bot logs a warning when that happens).'

/** Why a send is not going out now. */
export function whyOutbox(
  record: OutboxRecord,
  now: number,
  budget: AttemptBudget,
  previousPart?: { key: string; state: string | null },
): string {
  const next = `provider call ${record.attempts + 1}${ofBudget(budget.outboxCalls)}`
  switch (record.state) {
    case 'pending':
    case 'failed': {
      if (previousPart && previousPart.state !== 'sent' && previousPart.state !== 'unknown') {
        const state = previousPart.state ?? 'gone'
        return `waiting behind part ${previousPart.key} (${state}): a part never overtakes an earlier one; waiting does not use up its attempts.`
      }
      return waiting(record, now, next, 'sent')
    }
    case 'sending':
      return leased(record, now, 'the provider is being called')
    case 'sent': {
      const how = record.audit?.some((entry) => entry.action === 'reconciled')
        ? ' (settled by the channel: its status callback named this send after a crash left it ambiguous)'
        : ''
      return `sent at ${iso(record.updatedAt)}${record.providerMessageId ? ` as provider message ${record.providerMessageId}` : ''}${how}; a replay answers from this record instead of sending again.`
    }
    case 'unknown':
      return (
        `unknown since ${iso(record.updatedAt)}: a bot called the provider with it (call ${record.attempts + 1}) and died before recording the result, ` +
        `so the channel may well have delivered it; with onAmbiguous 'skip' nothing sends it again. ` +
        `Before a retry, check the channel: look in chat ${record.chatId} for this message, sent between ${iso(record.createdAt)} and ${iso(record.updatedAt)}. ` +
        `If it is not there, botmesh retry ${record.key} sends it again; if it is, botmesh discard ${record.key} keeps it from showing up here.`
      )
    case 'dead': {
      const withPart = record.lastError?.code === ERROR_CODES.PREVIOUS_PART_DEAD ? ' (it died with an earlier part of the same text)' : ''
      return `dead since ${iso(record.updatedAt)} after ${record.attempts} provider call(s)${because(record)}${withPart}; botmesh retry ${record.key} sends it again with a fresh budget.`
    }
  }
}

/**
 * What `attempts` means to a reader: the provider calls a record's failures counted, and for an
 * `unknown` send the one call whose outcome was never recorded.
 */
export function attemptsText(record: InboxRecord | OutboxRecord): string {
  return record.state === 'unknown' ? `${providerCalls(record)} (the last one's outcome unknown)` : String(record.attempts)
}

/**
 * The attempts a list shows: `attempts` counts failures, so an `unknown` send, whose last provider
 * call never recorded its outcome, made one more (a list would say 0 of a send the channel may have).
 */
export function providerCalls(record: { state: string; attempts: number }): number {
  return record.state === 'unknown' ? record.attempts + 1 : record.attempts
}

/** " of 3", or nothing when no running bot or flag says what the limit is. */
function ofBudget(limit: number | undefined): string {
  return limit === undefined ? ' (limit unknown: no live instance reports it; --max-attempts / --retries say it)' : ` of ${limit}`
}

function waiting(record: InboxRecord | OutboxRecord, now: number, next: string, verb: string): string {
  const at = record.nextAttemptAt ?? record.updatedAt
  const last = record.lastError ? ` Last error: ${errorText(record)}.` : ''
  if (at > now) return `backing off until ${iso(at)} (in ${duration(at - now)}), ${next}.${last}`
  return `due since ${iso(at)} (${duration(now - at)} ago), ${next}: the next sweep of a running bot in this scope picks it up and it is ${verb} then.${last}`
}

function leased(record: InboxRecord | OutboxRecord, now: number, what: string): string {
  const lease = record.lease
  if (!lease) return `${what}, but it carries no lease: the next sweep takes it.`
  const holder = `leased to ${lease.owner}, token ${lease.token}`
  if (lease.expiresAt > now)
    return `${what}: ${holder}, expires in ${duration(lease.expiresAt - now)} (the holder's heartbeat extends it while it works).`
  return `${holder}, but the lease expired ${duration(now - lease.expiresAt)} ago (the holder died or froze): the next sweep of any replica reclaims it under a new token.`
}

function because(record: InboxRecord | OutboxRecord): string {
  return record.lastError ? `: ${errorText(record)}` : ''
}

function errorText(record: InboxRecord | OutboxRecord): string {
  const error = record.lastError!
  return `${error.message}${error.code ? ` (${error.code})` : ''}`
}

/** A timestamp for people: ISO 8601 in UTC. */
export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

/** A short duration for people: 850ms, 12s, 4m 10s, 3h 2m, 2d 4h. */
export function duration(ms: number): string {
  const value = Math.max(0, Math.round(ms))
  if (value < 1_000) return `${value}ms`
  const seconds = Math.floor(value / 1_000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours}h ${minutes % 60}m`
  return `${Math.floor(hours / 24)}d ${hours % 24}h`
}
