/**
 * The event record of an `@botmesh/events` journal, and how it sits in the journal's in-memory
 * state: one entry per record, in a *lane* (one channel and scope), with the due and state-time
 * indexes the claims, lists and the bot's sweeper read.
 */
import type { Json, KvEntry } from '../core/durability/journal/kv.js'

/** The states of an event record, in the order of its life. */
export const EVENT_STATES = ['pending', 'processing', 'done', 'failed', 'dead'] as const
/** Where a record is in its life: waiting, leased to a worker, finished, waiting for a retry, given up. */
export type EventState = (typeof EVENT_STATES)[number]

/** States a replay re-queues; a pending record is queued already and a processing one is leased. */
export const REPLAYABLE_EVENT_STATES = ['done', 'failed', 'dead'] as const

/** The lease of a claimed record: who may finish it, under which fencing token, until when. */
export interface EventLease {
  /** Who holds it (a worker's or a bot's instance id). */
  owner: string
  /** Larger on every claim of the record; a completion under an older token is refused. */
  token: number
  /** ms since the epoch, on the journal's clock. */
  expiresAt: number
  /** When it was taken, in ms since the epoch. */
  acquiredAt: number
  /** Which run of the owner took it (the bot's restarted instance tells its earlier runs' leases apart). */
  incarnation?: string
}

/** What went wrong the last time, as journaled. */
export interface EventError {
  /** The error's message. */
  message: string
  /** Its stable code, when it had one. */
  code?: string
  /** Its class name. */
  name?: string
  /** When it happened, in ms since the epoch. */
  at: number
}

/** One event of the journal. */
export interface EventRecord<P extends Json = Json> {
  /** Unique in the journal. */
  id: string
  /** Append order in the journal (larger is later). */
  seq: number
  /**
   * The channel the record belongs to, or null. A claim takes records of one channel only: a claim
   * without a channel takes only records without one, so a worker never runs another channel's records.
   */
  channel: string | null
  /** A namespace inside a channel (the bot's durability scope for its records), or null. */
  scope: string | null
  /** What kind of event it is. */
  eventType: string
  /** What the event carries. */
  payload: P
  /** Where it is in its life. */
  state: EventState
  /** Runs charged so far (a claim charges one). */
  attempts: number
  /** A pending or failed record is not claimed before this time (null: at once). */
  availableAt: number | null
  /** The lease of the run in progress, if any. */
  lease: EventLease | null
  /** The last fencing token issued for the record. */
  fencingToken: number
  /** What went wrong the last time, if anything. */
  lastError: EventError | null
  /** When it was appended, in ms since the epoch. */
  createdAt: number
  /** When it last changed, in ms since the epoch. */
  updatedAt: number
  /** 1 when appended, +1 on every change: the compare-and-set version. */
  version: number
}

/** A record as a storage write gives it: the journal assigns `version`, and `seq` on insert. */
export type EventRecordInput = Omit<EventRecord, 'version' | 'seq'> & {
  /** Kept on an update; assigned by the journal on insert. */
  seq?: number
}

/** A channel and scope: the records a claim, a due scan or a state list looks at together. */
export interface EventLane {
  /** The lane's channel, or null. */
  channel: string | null
  /** The lane's scope, or null. */
  scope: string | null
}

/** The collection of event entries in a lane's state scope. */
export const EVENTS_COLLECTION = 'events'

/** The state scope of a lane's entries (JSON, so it reads back unambiguously). */
export function laneKey(lane: EventLane): string {
  return JSON.stringify(['events', lane.channel, lane.scope])
}

/** The lane a state scope holds, or undefined for side entries and journal metadata. */
export function laneOfKey(key: string): EventLane | undefined {
  if (!key.startsWith('["events",')) return undefined
  const [, channel, scope] = JSON.parse(key) as [string, string | null, string | null]
  return { channel, scope }
}

/** The state scope of the side entries of a scope (the outbox kept in the journal's file). */
export function sideKey(scope: string): string {
  return JSON.stringify(['side', scope])
}

/** The side scope a state scope holds, or undefined. */
export function sideOfKey(key: string): string | undefined {
  return key.startsWith('["side",') ? (JSON.parse(key) as [string, string])[1] : undefined
}

/** Where the journal keeps its append counter. */
export const META = { scope: JSON.stringify(['meta']), collection: 'meta', seqKey: 'seq' } as const

/** When a record must next be looked at: a retry time, or the expiry of its lease; null when finished. */
export function dueOf(record: Pick<EventRecord, 'state' | 'availableAt' | 'lease' | 'updatedAt'>): number | null {
  switch (record.state) {
    case 'pending':
    case 'failed':
      return record.availableAt ?? record.updatedAt
    case 'processing':
      return record.lease?.expiresAt ?? record.updatedAt
    default:
      return null
  }
}

/** The record an entry holds (a copy: callers may change it). */
export function recordOf(entry: KvEntry): EventRecord {
  return { ...(structuredClone(entry.value) as unknown as Omit<EventRecord, 'version'>), version: entry.version }
}

/** The stored value of a record: everything but its version, which the entry carries. */
export function valueOf(record: Omit<EventRecord, 'version'> & { version?: number }): Json {
  const { version: _version, ...value } = record
  return value as unknown as Json
}

/** The format name in an events journal file's header (FileDurability's layout under its own name). */
export const EVENTS_SNAPSHOT_FORMAT = 'botmesh-events'
