/**
 * A record's detail as lines of text: every field an operator asks about during an incident, the
 * `show` service's sentence on why it is not running, its audit trail and its JSON (event or
 * payload), cut at `detailLinesMax`. Pure; the detail view wraps and scrolls them.
 */
import { INSTANCE_SILENT_AFTER_MS, type InstanceView } from '../../operator/instances.js'
import { attemptsText, recordKey, type ShownRecord } from '../../operator/show.js'
import { sealedLabel } from '../../operator/sealed.js'
import type { InboxRecord, OutboxRecord, PreviousRun } from '../../core/durability/journal/records.js'
import { duration, relative } from './format.js'
import { DASHBOARD_LIMITS } from '../limits.js'
import type { LostRun } from './instance-rows.js'

/** What the detail view shows. */
export interface DetailContent {
  title: string
  lines: string[]
}

/** The detail of an inbox record or a send, as the `show` service found it. */
export function recordDetail(shown: ShownRecord, now: number): DetailContent {
  const record = shown.record
  const isInbox = shown.kind === 'inbox'
  const id = recordKey(shown.kind, record)
  const lines = [
    // Whole on a line of its own, to copy: the title is cut to the terminal's width.
    field(isInbox ? 'id' : 'key', id),
    field('state', record.state),
    field('why', shown.why),
    field('chat', record.chatId),
    field('attempts', attemptsText(record)),
    field('created', when(record.createdAt, now)),
    field('updated', when(record.updatedAt, now)),
    field('next try', record.nextAttemptAt === null ? '-' : when(record.nextAttemptAt, now)),
    field(
      'lease',
      record.lease ? `${record.lease.owner}, fencing token ${record.lease.token}, expires ${relative(record.lease.expiresAt - now)}` : '-',
    ),
    field('token', `${record.fencingToken} (the last fencing token issued)`),
    field(
      'last error',
      record.lastError
        ? `${record.lastError.code ? `${record.lastError.code}: ` : ''}${record.lastError.message} (${duration(now - record.lastError.at)} ago)`
        : '-',
    ),
  ]
  if (isInbox) {
    const inbox = record as InboxRecord
    lines.push(field('kind', `${inbox.kind}, admitted by provider ${inbox.provider}`))
  } else {
    const send = record as OutboxRecord
    lines.push(field('key rule', send.keySource + (send.inboundId ? `, for inbound ${send.inboundId} #${send.ordinal ?? 0}` : '')))
    if (send.previousPart)
      lines.push(field('after part', `${send.previousPart}${shown.previousPart ? ` (${shown.previousPart.state ?? 'gone'})` : ''}`))
    if (send.nextPart) lines.push(field('next part', send.nextPart))
    if (send.providerMessageId) lines.push(field('provider id', send.providerMessageId))
  }
  for (const entry of record.audit ?? [])
    lines.push(field('audit', `${entry.action} by ${entry.by}, ${duration(now - entry.at)} ago${entry.reason ? ` (${entry.reason})` : ''}`))
  const body = isInbox ? (record as InboxRecord).event : (record as OutboxRecord).payload
  const sealed = sealedLabel(body)
  lines.push('', isInbox ? 'event:' : 'payload:', ...(sealed ? [sealed] : json(body)))
  return {
    title: `${isInbox ? 'inbound record' : 'send'} ${id} (version ${shown.version})`,
    lines: lines.slice(0, DASHBOARD_LIMITS.detailLinesMax),
  }
}

/** The detail of an instance: its heartbeat and every metric it reported. */
export function instanceDetail(instance: InstanceView, now: number): DetailContent {
  const lines = [
    field(
      'status',
      instance.live
        ? now - instance.lastBeatAt > INSTANCE_SILENT_AFTER_MS
          ? `silent for ${duration(now - instance.lastBeatAt)}: a beat is late`
          : 'live'
        : `gone: no heartbeat for ${duration(now - instance.lastBeatAt)}`,
    ),
    field('bot', instance.botId),
    field('host', `${instance.host}, pid ${instance.pid}`),
    field('started', when(instance.startedAt, now)),
    field('last beat', when(instance.lastBeatAt, now)),
    field('last sweep', instance.lastSweepAt === null ? '-' : when(instance.lastSweepAt, now)),
    field('live until', when(instance.expiresAt, now)),
    ...(instance.leader ? [field('role', 'leader: holds the transport session')] : []),
    ...(instance.turns?.length ? [field('chat turns', instance.turns.join(' '))] : []),
    ...(instance.previousRun ? previousRunLines(instance.previousRun, now) : []),
    '',
    'metrics (since the instance started):',
    ...Object.entries(instance.metrics).map(([name, value]) => `  ${name.padEnd(18)} ${value.toLocaleString('en')}`),
  ]
  return { title: `instance ${instance.instanceId}`, lines: lines.slice(0, DASHBOARD_LIMITS.detailLinesMax) }
}

/** The run before this one, which died: when, and what the next run took back of what it held. */
function previousRunLines(run: PreviousRun, now: number): string[] {
  return [
    field('before it', `pid ${run.pid} on ${run.host}, started ${when(run.startedAt, now)}`),
    field('', `last beat ${when(run.lastBeatAt, now)}: it ended without a graceful stop (killed or crashed)`),
    field(
      '',
      `the next run took back what it held: ${run.inboxTakenBack} inbound record(s), replayed; ${run.outboxTakenBack} send(s), sent again or unknown`,
    ),
  ]
}

/** The detail of a run that died, from what the run that replaced it wrote. */
export function lostRunDetail(lost: LostRun, now: number): DetailContent {
  const lines = [field('status', `lost: replaced by pid ${lost.byPid}`), ...previousRunLines(lost.run, now)]
  return { title: `instance ${lost.instanceId}, pid ${lost.run.pid} (lost)`, lines }
}

function field(name: string, value: string): string {
  return `${name.padEnd(11)} ${value}`
}

function when(at: number, now: number): string {
  return `${new Date(at).toISOString()} (${relative(at - now)})`
}

function json(value: unknown): string[] {
  try {
    // A long string (media as base64) is cut: the view wraps lines, and one must not become thousands.
    const cut = DASHBOARD_LIMITS.detailLineLengthMax
    const lines = (JSON.stringify(value, null, 2) ?? 'undefined').split('\n', DASHBOARD_LIMITS.detailLinesMax)
    return lines.map((line) => `  ${line.length > cut ? `${line.slice(0, cut)}…` : line}`)
  } catch {
    return ['  (cannot be shown)']
  }
}
