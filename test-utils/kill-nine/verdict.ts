/**
 * The kill -9 test's verdict, from the channel double's log alone (the journal is never asked):
 *
 * - every message acknowledged in the end (the channel redelivers until it is);
 * - 0 lost: every message got its reply (onAmbiguous 'resend': not even an ambiguous one may be lost);
 * - 0 duplicates but in the ambiguous window: a reply went out more than once only as often as its
 *   key was reported ambiguous (taken back after a crash and sent again), counted per key as the
 *   crash matrix does (checker.ts), and never twice from one process;
 * - 0 order violations: within a chat a reply never goes out before the reply of a message that
 *   surely arrived first, ambiguous ones exempt. From outside, `a` arrived before `b` when `a` was
 *   acknowledged before `b` was first delivered, or when one process was first handed both, `a`
 *   first, and acknowledged both: it admitted them in that order. Two messages of a burst split by a
 *   kill have no order the channel can know (either may have been journaled first).
 */
import { tally, violations } from '../../src/core/testing/crash-matrix/checker.js'
import type { ChannelDouble, MessageHistory } from './channel.js'

export interface KillNineVerdict {
  messages: number
  acknowledged: number
  /** Messages whose reply went out (at least once). */
  replies: number
  /** Provider calls the channel received. */
  calls: number
  /** Copies of a reply beyond its first. */
  duplicates: number
  /** Sends reported ambiguous (taken back after a crash and sent again). */
  ambiguous: number
  /** Of those, sends the channel had already received before the report: the ambiguous window proper. */
  ambiguousAfterCall: number
  lost: number
  orderViolations: string[]
  /** Everything that breaks the guarantee, one sentence each (the order violations included). */
  problems: string[]
  /** The messages a problem names, by index: their histories go into the report. */
  suspects: number[]
}

export function killNineVerdict(channel: ChannelDouble): KillNineVerdict {
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
  for (const index of sentTwiceByOneProcess(channel)) {
    problems.push(`"${messages[index]!.reply}" went out twice from one process (no crash in between)`)
    suspects.add(index)
  }
  const order = orderViolations(channel)
  for (const { text, indexes } of order) {
    problems.push(`out of its chat's order: ${text}`)
    for (const index of indexes) suspects.add(index)
  }
  const ambiguousAfterCall = [...channel.ambiguousAt].filter(([key, at]) =>
    channel.sends.some((send) => send.tick < at && messages[channel.answered(send) ?? -1]?.key === key),
  ).length
  return {
    messages: messages.length,
    acknowledged: channel.acknowledged,
    replies: channel.replied,
    calls: channel.sends.length,
    duplicates: counts.duplicated,
    ambiguous: channel.ambiguous.size,
    ambiguousAfterCall,
    lost: counts.lost,
    orderViolations: order.map((violation) => violation.text),
    problems,
    suspects: [...suspects].filter((index) => index >= 0).sort((a, b) => a - b),
  }
}

/** Messages whose reply reached the channel twice from the same process. */
function sentTwiceByOneProcess(channel: ChannelDouble): number[] {
  const seen = new Set<string>()
  const twice = new Set<number>()
  for (const send of channel.sends) {
    const index = channel.answered(send)
    if (index === undefined) continue
    const copy = `${index}@${send.incarnation}`
    if (seen.has(copy)) twice.add(index)
    seen.add(copy)
  }
  return [...twice]
}

/** Pairs of a chat whose replies' first copies went out against the order in which the messages surely arrived. */
function orderViolations(channel: ChannelDouble): { text: string; indexes: [number, number] }[] {
  const { messages } = channel.workload
  const firstCopy = new Map<number, number>()
  for (const send of channel.sends) {
    const index = channel.answered(send)
    if (index !== undefined && !firstCopy.has(index)) firstCopy.set(index, send.tick)
  }
  const checked = (index: number) => firstCopy.has(index) && !channel.ambiguous.has(messages[index]!.key)
  const found: { text: string; indexes: [number, number] }[] = []
  for (const a of messages)
    for (const b of messages) {
      if (a.event.chatId !== b.event.chatId || a === b || !checked(a.index) || !checked(b.index)) continue
      if (!arrivedBefore(channel.histories[a.index]!, channel.histories[b.index]!)) continue
      if (firstCopy.get(b.index)! < firstCopy.get(a.index)!)
        found.push({ text: `"${b.reply}" went out before "${a.reply}", which arrived first`, indexes: [a.index, b.index] })
    }
  return found
}

/** Whether, seen from the channel, message `a` surely reached the bot's journal before `b`. */
export function arrivedBefore(a: MessageHistory, b: MessageHistory): boolean {
  const [firstA, firstB] = [a.deliveries[0], b.deliveries[0]]
  if (!firstA || !firstB) return false
  if (a.ackTick !== undefined && a.ackTick < firstB.tick) return true
  return firstA.incarnation === firstB.incarnation && firstA.tick < firstB.tick && firstA.outcome === 'acked' && firstB.outcome === 'acked'
}
