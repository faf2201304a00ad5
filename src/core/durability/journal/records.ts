/** The records botmesh journals, and how each maps onto the two sorted indexes (read by engine, backends, CLI, dashboard). */
import { journalKey } from './journal-key.js'
import type { Json } from './kv.js'

/** A lease on a record: who may work on it, under which fencing token, until when. */
export interface Lease {
  /** The instance id that holds it. */
  owner: string
  /** Larger for every claim of the record; a completion under an older token is rejected. */
  token: number
  /** ms since the epoch, on the backend's clock. */
  expiresAt: number
  /** When this lease was taken (backend clock). */
  acquiredAt: number
  /**
   * Which run of the owner's process took it (random per bot start). A restarted instance with the
   * same instanceId reclaims at once the leases of its earlier runs, and never its own.
   */
  incarnation?: string
}

/** What went wrong the last time, as journaled. */
export interface ErrorInfo {
  /** The error's message. */
  message: string
  /** Its stable code, when it had one. */
  code?: string
  /** Its class name. */
  name?: string
  /** When it happened, in ms since the epoch. */
  at: number
}

/** An operator's change to a record, kept on the record (who, when, why). */
export interface AuditEntry {
  /** What was done: `replay`, `retry`, `discard`, … */
  action: string
  /** Who did it (the operator's user and host, or the tool). */
  by: string
  /** When, in ms since the epoch. */
  at: number
  /** Why, as the operator typed it. */
  reason?: string
}

/** The states of an inbox record, in the order of its life: waiting, leased to a handler, handled, waiting for a retry, given up. */
export const INBOX_STATES = ['pending', 'processing', 'done', 'failed', 'dead'] as const
/** Where an inbox record is in its life (see `INBOX_STATES`). */
export type InboxState = (typeof INBOX_STATES)[number]

/** The states of an outbox record: journaled, with the provider, delivered, waiting for a retry, given up, or `unknown` (the provider may or may not have it). */
export const OUTBOX_STATES = ['pending', 'sending', 'sent', 'failed', 'dead', 'unknown'] as const
/** Where an outbox record is in its life (see `OUTBOX_STATES`). */
export type OutboxState = (typeof OUTBOX_STATES)[number]

/** An admitted inbound message or interaction. */
export interface InboxRecord {
  /** `<provider>:<chatId>:<event id>` (keys.ts inboxRecordId), so a redelivery maps onto the same record. */
  id: string
  /** A message, or an interaction (a button press). */
  kind: 'message' | 'interaction'
  /** Where it is in its life. */
  state: InboxState
  /** The chat it came from. */
  chatId: string
  /** The provider that admitted it (media references are only rebuilt by the same provider). */
  provider: string
  /** The inbound event as JSON; media as a serialized reference. */
  event: Json
  /** Runs charged so far (a claim charges one). */
  attempts: number
  /** When it runs again after a failure, in ms since the epoch; null when nothing is scheduled. */
  nextAttemptAt: number | null
  /** The lease of the run in progress, if any. */
  lease: Lease | null
  /** The last fencing token issued for this record. */
  fencingToken: number
  /** What went wrong the last time, if anything. */
  lastError: ErrorInfo | null
  /** When it was admitted, in ms since the epoch. */
  createdAt: number
  /** Its place in its chat's order (chat-order.ts); a replay gives it a new one. Older records: `createdAt`. */
  seq?: number
  /** The chat's unfinished message it was queued behind at admission: a takeover runs that one first (lane-takeover.ts). */
  after?: string | null
  /** When it last changed, in ms since the epoch. */
  updatedAt: number
  /** Operators' changes, oldest first. */
  audit?: AuditEntry[]
  /** What the last run did, when it did something an operator would not expect (e.g. a replayed answer fed no step). */
  note?: string
}

/** A send, journaled under its idempotency key before the provider is called. */
export interface OutboxRecord {
  /** The idempotency key: a second send under it is answered from this record. */
  key: string
  /** Where it is in its life. */
  state: OutboxState
  /** The chat it goes to. */
  chatId: string
  /** The content after the before('send') hooks, as JSON (Buffers base64). */
  payload: Json
  /** sha256 of chat + content before the hooks, for sends keyed by rule 2; null for explicit and random keys. */
  fingerprint: string | null
  /** Which key rule named this send. */
  keySource: 'explicit' | 'derived' | 'random'
  /** The inbox record whose handling made this send, and its ordinal there. */
  inboundId: string | null
  /** Which send of that handler run it is, from 0. */
  ordinal: number | null
  /** The key of the part that must be sent before this one, for a text split over the channel limit. */
  previousPart: string | null
  /** The key of the part that follows this one, if the text was split. */
  nextPart?: string | null
  /** Provider calls made so far. */
  attempts: number
  /** When it is tried again, in ms since the epoch; null when nothing is scheduled. */
  nextAttemptAt: number | null
  /** The lease of the attempt in progress, if any. */
  lease: Lease | null
  /** The last fencing token issued for this record. */
  fencingToken: number
  /** The channel's id of the sent message, once sent. */
  providerMessageId: string | null
  /** What went wrong the last time, if anything. */
  lastError: ErrorInfo | null
  /** When it was journaled, in ms since the epoch. */
  createdAt: number
  /** Its place in its chat's order (chat-order.ts): a chat's sends go out in this order. Absent on older records. */
  seq?: number
  /** When it last changed, in ms since the epoch. */
  updatedAt: number
  /** Operators' changes, oldest first. */
  audit?: AuditEntry[]
}

/** A running bot's heartbeat, so tools outside the process see live replicas and their metrics. */
export interface InstanceRecord {
  /** The bot's `instanceId`. */
  instanceId: string
  /** The bot's `botId`. */
  botId: string
  /** The host it runs on. */
  host: string
  /** Its process id. */
  pid: number
  /** When the bot started, in ms since the epoch. */
  startedAt: number
  /** Its last heartbeat, in ms since the epoch. */
  lastBeatAt: number
  /** The sweeper's last pass, in ms since the epoch. */
  lastSweepAt: number | null
  /** When the record stops counting as live unless beaten again. */
  expiresAt: number
  /** Its durability counters at the last beat. */
  metrics: Record<string, number>
  /**
   * The limits the instance runs with, so an operator's `show` counts attempts against them and
   * `stats` judges the purge backlog by the retention (absent from older bots; retentionMs too).
   */
  limits?: {
    /** Its `inbox.maxAttempts`. */
    inboxMaxAttempts: number
    /** Its `outbox.retries`. */
    outboxRetries: number
    /** Its `retention` of finished records, in ms. */
    retentionMs?: number
  }
  /** The run of this instanceId before this one, when it ended without a graceful stop (absent otherwise). */
  previousRun?: PreviousRun
}

/**
 * A run that ended without a graceful stop (killed, crashed: its heartbeat was left behind), as the
 * next run of its instanceId found it, with what that run had leased and the next one took back.
 */
export interface PreviousRun {
  /** The host it ran on (`os.hostname()`). */
  host: string
  /** Its process id on that host. */
  pid: number
  /** When it started, in ms since the epoch. */
  startedAt: number
  /** Its last heartbeat, in ms since the epoch: it died after it. */
  lastBeatAt: number
  /** Inbound records it was running (processing), taken back and replayed by the next run. */
  inboxTakenBack: number
  /** Sends it was making (sending), taken back by the next run: sent again, or unknown (outcome unknown). */
  outboxTakenBack: number
}

/** Who holds a chat's turn or the transport session: a lease with the inbox record it runs, if any. */
export interface TurnHolder extends Lease {
  /** The inbox record whose handler holds the turn (empty for the transport session). */
  inboxId: string
}

/**
 * A chat's turn (`durability.coordination`): the chat's unfinished messages in arrival order and
 * the replica whose handler runs now. Claimed and released by compare-and-set, fenced like the inbox.
 */
export interface TurnRecord {
  /** The chat. */
  chatId: string
  /** Messages waiting for or holding the turn, in (createdAt, id) order. */
  queue: {
    /** The inbox record id. */
    id: string
    /** When it was admitted, in ms since the epoch. */
    createdAt: number
  }[]
  /** Places given up as never journaled, newest last, at most LIMITS.turnGaveUpMax (turns/turn-queue.ts isGivenUp). */
  gaveUp?: string[]
  /** The replica whose handler runs now, if any. */
  holder: TurnHolder | null
  /** The last fencing token issued for this turn. */
  fencingToken: number
  /** When it last changed, in ms since the epoch. */
  updatedAt: number
}

/** The leader-only transport session (`providerSession: 'leader'`): which replica holds it, till when. */
export interface SessionRecord {
  /** 'transport'. */
  name: string
  /** The replica that holds the session, if any. */
  holder: Lease | null
  /** The last fencing token issued for the session. */
  fencingToken: number
  /** When it last changed, in ms since the epoch. */
  updatedAt: number
}

/** The record each journal kind holds. */
export interface RecordOf {
  /** Inbound messages and interactions. */
  inbox: InboxRecord
  /** Sends. */
  outbox: OutboxRecord
  /** Running bots' heartbeats. */
  instances: InstanceRecord
  /** Chat turns across replicas. */
  turns: TurnRecord
  /** The leader-only transport session. */
  sessions: SessionRecord
}
/** A journal kind: `inbox`, `outbox`, `instances` (heartbeats), `turns` or `sessions` (replica coordination). */
export type RecordKind = keyof RecordOf
/** Every journal kind, in a fixed order. */
export const RECORD_KINDS: readonly RecordKind[] = ['inbox', 'outbox', 'instances', 'turns', 'sessions']

/** The index fields a backend keeps for a record. */
export interface RecordIndex {
  /** Its state: groups the state-time index. */
  state: string
  /** When it entered its state, in ms since the epoch: orders the state-time index. */
  stateTime: number
  /** When the sweeper must next look at it (retry time or lease expiry), or null. */
  due: number | null
}

/** The key of a record in its collection. */
export function recordKey<K extends RecordKind>(kind: K, record: RecordOf[K]): string {
  if (kind === 'inbox') return (record as InboxRecord).id
  if (kind === 'outbox') return (record as OutboxRecord).key
  if (kind === 'turns') return journalKey((record as TurnRecord).chatId)
  if (kind === 'sessions') return (record as SessionRecord).name
  return (record as InstanceRecord).instanceId
}

/** Where a record sits in the due and state-time indexes. */
export function recordIndex<K extends RecordKind>(kind: K, record: RecordOf[K]): RecordIndex {
  if (kind === 'instances') {
    const instance = record as InstanceRecord
    return { state: 'live', stateTime: instance.startedAt, due: instance.expiresAt }
  }
  if (kind === 'turns' || kind === 'sessions') {
    // Held ones are listed (instances, dashboard) and due when their lease runs out.
    const holder = (record as TurnRecord | SessionRecord).holder
    return { state: holder ? 'held' : 'free', stateTime: (record as TurnRecord).updatedAt, due: holder?.expiresAt ?? null }
  }
  const work = record as InboxRecord | OutboxRecord
  return { state: work.state, stateTime: work.updatedAt, due: dueOf(work) }
}

function dueOf(record: InboxRecord | OutboxRecord): number | null {
  switch (record.state) {
    case 'pending':
    case 'failed':
      return record.nextAttemptAt ?? record.updatedAt
    case 'processing':
    case 'sending':
      return record.lease?.expiresAt ?? record.updatedAt
    default:
      return null
  }
}
