/**
 * The kill -9 test's verdict, from the channel double's log alone (the journal is never asked):
 *
 * - every message acknowledged in the end (the channel redelivers until it is);
 * - 0 lost: every message got its reply (onAmbiguous 'resend': not even an ambiguous one may be lost);
 * - 0 duplicates but in the ambiguous window: a copy of a reply after its first is allowed only when
 *   a later process than the one that sent the copy before reported its key ambiguous (took the
 *   send back, to send it again) after that copy reached the channel: the provider was called and
 *   the process died before the outcome was journaled. The crash matrix's per-key count
 *   (checker.ts) holds too;
 * - 0 order violations: within a chat a reply never goes out before the reply of a message that
 *   surely arrived first, ambiguous ones exempt. From outside, `a` arrived before `b` when `a` was
 *   acknowledged before `b` was first delivered, or when one process was first handed both, `a`
 *   first, and acknowledged both: it admitted them in that order. Two messages of a burst split by a
 *   kill have no order the channel can know (either may have been journaled first).
 */
import { tally, violations } from '../../src/testing/crash-matrix/checker.js'
import type { ChannelLog, MessageHistory } from './channel-log.js'

export interface KillNineVerdict {
  messages: number
  acknowledged: number
  /** Messages whose reply went out (at least once). */
  replies: number
  /** Provider calls the channel received. */
  calls: number
  /** Copies of a reply beyond its first. */
  duplicates: number
  /** Sends taken back after a crash ('durability:ambiguous' reports). */
  takenBack: number
  /** Of those, sends the channel had received since the key's previous report: the ambiguous window proper. */
  takenBackAfterCall: number
  lost: number
  /** Pairs of messages of one chat whose order the channel knows and checked (neither ambiguous). */
  orderedPairs: number
  orderViolations: string[]
  /** Everything that breaks the guarantee, one sentence each (the order violations included). */
  problems: string[]
  /** The messages a problem names, by index: their histories go into the report. */
  suspects: number[]
}

export function killNineVerdict(channel: ChannelLog): KillNineVerdict {
  const { messages } = channel.workload
  const expected = messages.map((message) => ({ chatId: message.event.chatId, text: message.reply, key: message.key }))
  const counts = tally(expected, channel.sends, channel.ambiguous)
  // The crash matrix's rules for 'resend' (no loss, a duplicate only per ambiguity, nothing unexpected);
  // its order check assumes one total order per chat, which bursts split by a kill do not have: ours is below.
  const problems = violations({ ...counts, outOfOrder: [] }, 'resend')
  const suspects = new Set(counts.misses.map((miss) => messages.findIndex((message) => message.key === miss.key)))
  channel.histories.forEach((history, index) => {
    if (history.ackTick !== undefined) return
    problems.push(`${messages[index]!.event.id} was never acknowledged`)
    suspects.add(index)
  })
  const copies = copiesAndReports(channel)
  for (const [index, unexplained] of copies.unexplained) {
    problems.push(`"${messages[index]!.reply}" went out again ${unexplained} time(s) with no take-back of its send since the copy before`)
    suspects.add(index)
  }
  const order = orderViolations(channel)
  for (const { text, indexes } of order.found) {
    problems.push(`out of its chat's order: ${text}`)
    for (const index of indexes) suspects.add(index)
  }
  return {
    messages: messages.length,
    acknowledged: channel.acknowledged,
    replies: channel.replied,
    calls: channel.sends.length,
    duplicates: counts.duplicated,
    takenBack: channel.takenBack.length,
    takenBackAfterCall: copies.takenBackAfterCall,
    lost: counts.lost,
    orderedPairs: order.pairs,
    orderViolations: order.found.map((violation) => violation.text),
    problems,
    suspects: [...suspects].filter((index) => index >= 0).sort((a, b) => a - b),
  }
}

/**
 * Each message's copies and take-backs in the channel's order: copies after the first with no
 * take-back since the copy before by a later process (by message), and take-backs that followed a
 * copy since the key's previous take-back (the provider had been called).
 */
function copiesAndReports(channel: ChannelLog): { unexplained: Map<number, number>; takenBackAfterCall: number } {
  const { messages } = channel.workload
  const byKey = new Map(messages.map((message) => [message.key, message.index]))
  const events = [
    ...channel.sends.flatMap((send) => {
      const index = channel.answered(send)
      return index === undefined ? [] : [{ tick: send.tick, incarnation: send.incarnation, index, copy: true }]
    }),
    ...channel.takenBack.flatMap((report) => {
      const index = byKey.get(report.key)
      return index === undefined ? [] : [{ tick: report.tick, incarnation: report.incarnation, index, copy: false }]
    }),
  ].sort((a, b) => a.tick - b.tick)
  /** By message: the process of its last copy (-1: none yet), whether a report followed it, and whether one came from a later process. */
  const state = messages.map(() => ({ copiedBy: -1, reportedSinceCopy: false, takenBackSinceCopy: false }))
  const unexplained = new Map<number, number>()
  let takenBackAfterCall = 0
  for (const { index, copy, incarnation } of events) {
    const message = state[index]!
    if (!copy) {
      if (message.copiedBy >= 0 && !message.reportedSinceCopy) takenBackAfterCall++
      message.reportedSinceCopy = true
      if (incarnation > message.copiedBy) message.takenBackSinceCopy = true
      continue
    }
    if (message.copiedBy >= 0 && !message.takenBackSinceCopy) unexplained.set(index, (unexplained.get(index) ?? 0) + 1)
    Object.assign(message, { copiedBy: incarnation, reportedSinceCopy: false, takenBackSinceCopy: false })
  }
  return { unexplained, takenBackAfterCall }
}

/** Pairs of a chat whose replies' first copies went out against the order in which the messages surely arrived. */
function orderViolations(channel: ChannelLog): { pairs: number; found: { text: string; indexes: [number, number] }[] } {
  const { messages } = channel.workload
  const firstCopy = new Map<number, number>()
  for (const send of channel.sends) {
    const index = channel.answered(send)
    if (index !== undefined && !firstCopy.has(index)) firstCopy.set(index, send.tick)
  }
  const checked = (index: number) => firstCopy.has(index) && !channel.ambiguous.has(messages[index]!.key)
  const found: { text: string; indexes: [number, number] }[] = []
  let pairs = 0
  for (const a of messages)
    for (const b of messages) {
      if (a.event.chatId !== b.event.chatId || a === b || !checked(a.index) || !checked(b.index)) continue
      if (!arrivedBefore(channel.histories[a.index]!, channel.histories[b.index]!)) continue
      pairs++
      if (firstCopy.get(b.index)! < firstCopy.get(a.index)!)
        found.push({ text: `"${b.reply}" went out before "${a.reply}", which arrived first`, indexes: [a.index, b.index] })
    }
  return { pairs, found }
}

/** Whether, seen from the channel, message `a` surely reached the bot's journal before `b`. */
export function arrivedBefore(a: MessageHistory, b: MessageHistory): boolean {
  const [firstA, firstB] = [a.deliveries[0], b.deliveries[0]]
  if (!firstA || !firstB) return false
  if (a.ackTick !== undefined && a.ackTick < firstB.tick) return true
  return firstA.incarnation === firstB.incarnation && firstA.tick < firstB.tick && firstA.outcome === 'acked' && firstB.outcome === 'acked'
}
