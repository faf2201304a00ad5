/**
 * The kill -9 test's verdict (test-utils/kill-nine/verdict.ts) on channel logs written by hand: it
 * fails a second copy no take-back by a later process explains, a reply that never came, and a
 * reply out of the order the channel knows; it lets through a copy resent after a take-back and two
 * messages of a burst a kill split (their order is not the channel's to know).
 */
import { describe, expect, it } from 'vitest'
import { ChannelLog } from '../../test-utils/kill-nine/channel-log.js'
import { killNineVerdict } from '../../test-utils/kill-nine/verdict.js'
import { killNineWorkload, type KillNineMessage } from '../../test-utils/kill-nine/workload.js'

/** A log over the workload's first chat, its messages m0, m1 … */
function chatLog(): { log: ChannelLog; m: KillNineMessage[] } {
  const workload = killNineWorkload(1, 0)
  const chat = workload.messages.filter((message) => message.event.chatId === 'c1')
  return { log: new ChannelLog({ messages: chat.map((message, index) => ({ ...message, index })), bursts: [] }), m: chat }
}

/** Message `n` delivered to and acknowledged by process `incarnation`. */
const admitted = (log: ChannelLog, m: KillNineMessage[], n: number, incarnation = 0) => {
  log.delivered(n, incarnation)
  log.outcome(m[n]!.event.id, incarnation, 'acked')
}
const replied = (log: ChannelLog, m: KillNineMessage[], n: number, incarnation = 0) =>
  log.sent({ chatId: 'c1', text: m[n]!.reply }, incarnation)

/** Every message of the chat admitted and answered once, one after another, by process 0. */
function answeredInOrder(log: ChannelLog, m: KillNineMessage[]): void {
  m.forEach((_, n) => {
    admitted(log, m, n)
    replied(log, m, n)
  })
}

describe('the kill -9 verdict', () => {
  it('passes a log where every message was acknowledged and answered once, in order', () => {
    const { log, m } = chatLog()
    answeredInOrder(log, m)
    const verdict = killNineVerdict(log)
    expect(verdict.problems).toEqual([])
    expect(verdict).toMatchObject({ messages: m.length, acknowledged: m.length, replies: m.length, duplicates: 0, lost: 0 })
    expect(verdict.orderedPairs).toBe((m.length * (m.length - 1)) / 2)
  })

  it('fails a second copy with no take-back, or one reported by the process that sent the first copy', () => {
    for (const reporter of [undefined, 0]) {
      const { log, m } = chatLog()
      answeredInOrder(log, m)
      if (reporter !== undefined) log.tookBack(m[2]!.key, reporter)
      replied(log, m, 2, 1)
      const verdict = killNineVerdict(log)
      expect(verdict.duplicates).toBe(1)
      expect(verdict.problems).toContain(`"${m[2]!.reply}" went out again 1 time(s) with no take-back of its send since the copy before`)
    }
  })

  it('passes a copy resent after a later process took the send back, and counts the take-back in the ambiguous window', () => {
    const { log, m } = chatLog()
    answeredInOrder(log, m)
    log.tookBack(m[2]!.key, 1)
    replied(log, m, 2, 1)
    const verdict = killNineVerdict(log)
    expect(verdict.problems).toEqual([])
    expect(verdict).toMatchObject({ duplicates: 1, takenBack: 1, takenBackAfterCall: 1 })
  })

  it('fails a message never acknowledged and a reply never sent', () => {
    const { log, m } = chatLog()
    answeredInOrder(log, m.slice(0, -1))
    log.delivered(m.length - 1, 0)
    const verdict = killNineVerdict(log)
    expect(verdict.lost).toBe(1)
    expect(verdict.problems).toContain(`${m.at(-1)!.event.id} was never acknowledged`)
  })

  it('fails a reply out of the order the channel knows: acknowledged before the next was delivered, or both admitted by one process in turn', () => {
    const { log, m } = chatLog()
    admitted(log, m, 0)
    admitted(log, m, 1)
    replied(log, m, 1)
    replied(log, m, 0)
    for (let n = 2; n < m.length; n++) (admitted(log, m, n), replied(log, m, n))
    expect(killNineVerdict(log).orderViolations).toEqual([`"${m[1]!.reply}" went out before "${m[0]!.reply}", which arrived first`])

    const burst = chatLog()
    burst.log.delivered(0, 0)
    burst.log.delivered(1, 0)
    burst.log.outcome(burst.m[0]!.event.id, 0, 'acked')
    burst.log.outcome(burst.m[1]!.event.id, 0, 'acked')
    replied(burst.log, burst.m, 1)
    replied(burst.log, burst.m, 0)
    expect(killNineVerdict(burst.log).orderViolations).toHaveLength(1)
  })

  it('passes two messages of a burst a kill split, and exempts an ambiguous reply from the order', () => {
    const { log, m } = chatLog()
    // m0 and m1 in flight together; the process died with only m1 acknowledged, m0 came again to the next one.
    log.delivered(0, 0)
    log.delivered(1, 0)
    log.outcome(m[1]!.event.id, 0, 'acked')
    admitted(log, m, 0, 1)
    replied(log, m, 1, 1)
    replied(log, m, 0, 1)
    // m2 after both, answered before m3 by a send taken back: its first copy's place says nothing.
    admitted(log, m, 2, 1)
    admitted(log, m, 3, 1)
    replied(log, m, 3, 1)
    log.tookBack(m[2]!.key, 2)
    replied(log, m, 2, 2)
    for (let n = 4; n < m.length; n++) (admitted(log, m, n, 2), replied(log, m, n, 2))
    expect(killNineVerdict(log).problems).toEqual([])
  })
})
