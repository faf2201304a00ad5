/**
 * What the channel double of the kill -9 test delivers: a few messages in each of several chats,
 * some chats in bursts (several messages in flight at once), the chats interleaved by the seed.
 * Each message's reply is derived from its text, so the channel's log says which message a send
 * answers; each reply's outbox key is the message's inbox record id and `:1` (its first send).
 */
import type { InboundEvent } from '../../src/core/provider.js'
import { pick, seededRandom } from '../../src/core/testing/crash-matrix/random.js'
import { replyTo } from '../../test/fixtures/kill-nine/protocol.js'
import { recordId } from '../record-id.js'

/** The workload's size. */
export const KILL_NINE_CHATS = 16
export const KILL_NINE_PER_CHAT = 5
/** Every third chat receives bursts: 2 or 3 messages delivered together, before any is acknowledged. */
const BURST_CHAT_EVERY = 3

export interface KillNineMessage {
  /** Its place in the workload's order (the order the channel first delivers in). */
  index: number
  event: InboundEvent
  /** The reply it must get, exactly once (but in the ambiguous window). */
  reply: string
  /** The outbox key of that reply. */
  key: string
}

/** Messages delivered together: the next burst of a chat goes out once every message of this one was acknowledged. */
export interface Burst {
  chatId: string
  /** Indexes into `messages`. */
  members: number[]
}

export interface KillNineWorkload {
  messages: KillNineMessage[]
  /** In the order the channel delivers them. */
  bursts: Burst[]
}

/** The seed's workload: each chat's messages in order, chats interleaved at random. */
export function killNineWorkload(seed: number): KillNineWorkload {
  const random = seededRandom(seed ^ 0x5eed)
  const perChat = Array.from({ length: KILL_NINE_CHATS }, (_, c) => chatBursts(c, random))
  const messages: KillNineMessage[] = []
  const bursts: Burst[] = []
  for (;;) {
    const open = perChat.filter((chat) => chat.length > 0)
    if (open.length === 0) break
    const texts = open[pick(random, 0, open.length - 1)]!.shift()!
    const members = texts.map((event) => {
      messages.push({ index: messages.length, event, reply: replyTo(event.text!), key: `${recordId(event.id, event.chatId)}:1` })
      return messages.length - 1
    })
    bursts.push({ chatId: texts[0]!.chatId, members })
  }
  return { messages, bursts }
}

/** Chat `c`'s messages grouped into bursts: one at a time, or 2 and 3 at a time in a burst chat. */
function chatBursts(c: number, random: () => number): InboundEvent[][] {
  const chatId = `c${c}`
  const events = Array.from({ length: KILL_NINE_PER_CHAT }, (_, n) => ({ id: `c${c}.m${n}`, chatId, text: `c${c} m${n}` }))
  if (c % BURST_CHAT_EVERY !== 0) return events.map((event) => [event])
  const first = pick(random, 2, 3)
  return [events.slice(0, first), events.slice(first)]
}
