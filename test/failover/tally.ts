/**
 * What a failover cost, read from the oracle file (the facts the bot processes and the test wrote,
 * apart from the journal under test): for each message of the stream, whether it was acknowledged,
 * and how many times its reply went out. The window is the stretch between the test's `frozen`
 * and `killed` marks: journal writes acknowledged there reached the primary only, so a failover
 * may lose them (without `waitReplicas`); outside it, nothing may be lost or sent twice.
 */
import type { InboundEvent } from '../../src/core/provider/provider.js'
import type { ReplicaLine } from '../fixtures/replicas/protocol.js'
import { recordId } from '../../test-utils/record-id.js'
import type { ChannelOrder } from './channel.js'

/** The counts of one run. */
export interface FailoverTally {
  messages: number
  /** Messages a bot acknowledged (every one, in the end: the channel delivers until it is). */
  acknowledged: number
  /** Of those, acknowledged within the window. */
  acknowledgedInWindow: number
  /**
   * Acknowledged, never answered, and its reply's send reported ambiguous (a bot killed between the
   * provider's call and its record: whether it went out is unknown, so it is not sent again).
   */
  ambiguous: string[]
  /** Acknowledged and never answered, with no ambiguous send: lost. */
  lost: string[]
  /** Lost although acknowledged outside the window. */
  lostOutsideWindow: string[]
  /** Answered more than once. */
  duplicated: string[]
  /** Answered more than once, the first time outside the window. */
  duplicatedOutsideWindow: string[]
  /**
   * Replies out of their chat's order: `"m7 before m3"` where m3 was acknowledged before m7 was first
   * delivered (the channel's order: m3 came first) and m7's reply went out first.
   */
  outOfOrder: string[]
}

/** The reply the replica fixture sends to an event. */
export function replyTo(event: InboundEvent): string {
  return `re ${recordId(event.id, event.chatId)}`
}

/** Counts a run's losses, doubles and replies out of order (see the file's comment and `outOfOrder`). */
export function tally(lines: readonly ReplicaLine[], events: readonly InboundEvent[], order: ChannelOrder): FailoverTally {
  const markAt = (name: string) => lines.findIndex((line) => 'mark' in line && line.mark === name)
  const [from, to] = [markAt('frozen'), markAt('killed')]
  const inWindow = (at: number) => from >= 0 && at > from && (to < 0 || at < to)
  const firstAck = new Map<string, number>()
  const sends = new Map<string, number[]>()
  // An ambiguous send's key is the inbox record id and the send's number: `<record id>:1`.
  const ambiguous = new Set(lines.flatMap((line) => ('ambiguous' in line ? [line.ambiguous.replace(/:\d+$/, '')] : [])))
  lines.forEach((line, at) => {
    if ('acked' in line && !firstAck.has(line.acked)) firstAck.set(line.acked, at)
    if ('sent' in line)
      sends.set(`${line.sent.chatId}|${line.sent.text}`, [...(sends.get(`${line.sent.chatId}|${line.sent.text}`) ?? []), at])
  })
  const result: FailoverTally = {
    messages: events.length,
    acknowledged: 0,
    acknowledgedInWindow: 0,
    ambiguous: [],
    lost: [],
    lostOutsideWindow: [],
    duplicated: [],
    duplicatedOutsideWindow: [],
    outOfOrder: [],
  }
  for (const event of events) {
    const acked = firstAck.get(event.id)
    const sent = sends.get(`${event.chatId}|${replyTo(event)}`) ?? []
    if (acked === undefined) continue
    result.acknowledged++
    if (inWindow(acked)) result.acknowledgedInWindow++
    if (sent.length === 0 && ambiguous.has(recordId(event.id, event.chatId))) result.ambiguous.push(event.id)
    else if (sent.length === 0) (inWindow(acked) ? result.lost : result.lostOutsideWindow).push(event.id)
    if (sent.length > 1) (inWindow(sent[0]!) ? result.duplicated : result.duplicatedOutsideWindow).push(event.id)
  }
  // Each chat's answered messages by their first reply: none may come before one the channel had acknowledged earlier.
  const firstReply = (event: InboundEvent) => sends.get(`${event.chatId}|${replyTo(event)}`)?.[0]
  for (const later of events)
    for (const earlier of events) {
      const [laterAt, earlierAt] = [firstReply(later), firstReply(earlier)]
      if (earlier.chatId !== later.chatId || laterAt === undefined || earlierAt === undefined) continue
      if (laterAt < earlierAt && order.before(earlier.id, later.id)) result.outOfOrder.push(`${later.id} before ${earlier.id}`)
    }
  result.lost.push(...result.lostOutsideWindow)
  result.duplicated.push(...result.duplicatedOutsideWindow)
  return result
}
