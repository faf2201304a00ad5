/**
 * `instances`: the replicas that wrote a heartbeat into the scope (host, pid, start, last beat and
 * sweep, their metrics, whether it leads the transport session and which chat turns it holds), and `leases`: the records a replica is working on right now.
 */
import type { Journal } from '../core/durability/journal/backend.js'
import { LIMITS } from '../core/durability/limits.js'
import { TRANSPORT_SESSION } from '../core/durability/session/session-leader.js'
import type { InboxRecord, InstanceRecord, OutboxRecord } from '../core/durability/journal/records.js'
import type { WorkKind } from './records.js'

/** An instance as `instances` shows it. */
export interface InstanceView extends InstanceRecord {
  /** Its heartbeat record has not expired yet. */
  live: boolean
  /** live and beating; silent: live but a beat is late (killed, frozen); gone: the record expired. */
  status: 'live' | 'silent' | 'gone'
  /** Since the last heartbeat. */
  lastBeatAgoMs: number
  /** Since its start: to now while it beats, to its last beat once it is silent or gone. */
  uptimeMs: number
  /** It holds the leader-only transport session now (providerSession 'leader'). */
  leader?: boolean
  /** The chats whose turn it holds now (durability.coordination), at most TURNS_MAX of the scope. */
  turns?: string[]
}

/**
 * A heartbeat this long after the last one is late: one beat missed. The record stays live until
 * it expires (`instanceBeatsToLive` beats), but a `kill -9` should not look alive until then.
 * @default 2 × LIMITS.instanceBeatMs (10s)
 */
export const INSTANCE_SILENT_AFTER_MS = LIMITS.instanceBeatMs * 2

/** Heartbeat records read at most. */
export const INSTANCES_MAX = 1_000

/** Held chat turns read at most (a replica holds one per chat it runs a handler of). */
export const TURNS_MAX = 1_000

/** The scope's instances; `all` keeps those whose heartbeat expired too. */
export async function listInstances(journal: Journal, now: number, options: { all?: boolean } = {}): Promise<InstanceView[]> {
  const [found, [session], turns] = await Promise.all([
    journal.list('instances', { state: 'live', limit: INSTANCES_MAX }),
    journal.read('sessions', [TRANSPORT_SESSION]),
    journal.list('turns', { state: 'held', limit: TURNS_MAX }),
  ])
  const holder = session?.record.holder
  const leader = holder && holder.expiresAt > now ? holder.owner : undefined
  const turnsOf = new Map<string, string[]>()
  for (const { record } of turns) {
    if (!record.holder || record.holder.expiresAt <= now) continue
    turnsOf.set(record.holder.owner, [...(turnsOf.get(record.holder.owner) ?? []), record.chatId])
  }
  return found
    .map(({ record }) => instanceView(record, now, { leader: record.instanceId === leader, turns: turnsOf.get(record.instanceId) ?? [] }))
    .filter((instance) => options.all || instance.live)
}

function instanceView(record: InstanceRecord, now: number, roles: Pick<InstanceView, 'leader' | 'turns'>): InstanceView {
  const live = record.expiresAt > now
  const lastBeatAgoMs = now - record.lastBeatAt
  const status = !live ? 'gone' : lastBeatAgoMs > INSTANCE_SILENT_AFTER_MS ? 'silent' : 'live'
  return { ...record, live, status, lastBeatAgoMs, uptimeMs: (status === 'live' ? now : record.lastBeatAt) - record.startedAt, ...roles }
}

/** A lease as `leases` shows it. */
export interface LeaseView {
  kind: WorkKind
  id: string
  chatId: string
  owner: string
  token: number
  expiresAt: number
  /** Negative once expired (a sweep will reclaim it). */
  expiresInMs: number
  attempts: number
}

/** Records with a lease (processing inbound, sending outbound), soonest expiry first, at most `limit`. */
export async function listLeases(journal: Journal, now: number, limit: number): Promise<LeaseView[]> {
  const [inbox, outbox] = await Promise.all([
    journal.list('inbox', { state: 'processing', limit }),
    journal.list('outbox', { state: 'sending', limit }),
  ])
  const views: LeaseView[] = []
  for (const { record } of inbox) if (record.lease) views.push(view('inbox', record.id, record, now))
  for (const { record } of outbox) if (record.lease) views.push(view('outbox', record.key, record, now))
  return views.sort((a, b) => a.expiresAt - b.expiresAt).slice(0, limit)
}

function view(kind: WorkKind, id: string, record: InboxRecord | OutboxRecord, now: number): LeaseView {
  const lease = record.lease!
  return {
    kind,
    id,
    chatId: record.chatId,
    owner: lease.owner,
    token: lease.token,
    expiresAt: lease.expiresAt,
    expiresInMs: lease.expiresAt - now,
    attempts: record.attempts,
  }
}
