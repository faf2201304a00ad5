/**
 * What the channel double of the kill -9 test delivers: a few messages in each of several chats,
 * some chats in bursts (several messages in flight at once), the chats interleaved by the seed.
 * Each message's reply is derived from its text, so the channel's log says which message a send
 * answers; each reply's outbox key is the message's inbox record id and `:1` (its first send).
 *
 * The bursts are cut into stages: stage k is first delivered to the k-th process or the one before
 * (channel.ts), so every process meets at least STAGE_MESSAGES_MIN messages it has never seen, and
 * each of them passes through every phase a kill may land in. The kills then spread over the stream,
 * and each one is sure to find its moment.
 */
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { pick, seededRandom } from '../../src/testing/crash-matrix/random.js'
import { replyTo } from '../../test/fixtures/kill-nine/protocol.js'
import { recordId } from '../record-id.js'

/** The workload's size. */
export const KILL_NINE_CHATS = 18
export const KILL_NINE_PER_CHAT = 6
/** Every third chat receives bursts: 2 or 3 messages delivered together, before any is acknowledged. */
const BURST_CHAT_EVERY = 3
const BURST_MAX = 3
/** Messages in a stage, at least: as many as a kill's drawn occurrence may need (kill-plan.ts). */
export const STAGE_MESSAGES_MIN = 3

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
  /** The process (counted from 0) that may receive it first, and the one before. */
  stage: number
}

export interface KillNineWorkload {
  messages: KillNineMessage[]
  /** In the order the channel delivers them. */
  bursts: Burst[]
}

/**
 * The seed's workload for a run of `kills` kills: each chat's messages in order, chats interleaved at
 * random, cut into `kills + 1` stages of STAGE_MESSAGES_MIN messages or more, and a last one with the
 * rest. A stage holds at most 2 × STAGE_MESSAGES_MIN − 1 messages (one burst short, then a full one),
 * so 21 stages need at most 105 of the 108 messages.
 */
export function killNineWorkload(seed: number, kills: number): KillNineWorkload {
  const random = seededRandom(seed ^ 0x5eed)
  const perChat = Array.from({ length: KILL_NINE_CHATS }, (_, c) => chatBursts(c, random))
  const messages: KillNineMessage[] = []
  const bursts: Burst[] = []
  let stage = 0
  let inStage = 0
  for (;;) {
    const open = perChat.filter((chat) => chat.length > 0)
    if (open.length === 0) break
    const events = open[pick(random, 0, open.length - 1)]!.shift()!
    const members = events.map((event) => {
      messages.push({ index: messages.length, event, reply: replyTo(event.text!), key: `${recordId(event.id, event.chatId)}:1` })
      return messages.length - 1
    })
    bursts.push({ chatId: events[0]!.chatId, members, stage })
    inStage += members.length
    if (inStage >= STAGE_MESSAGES_MIN && stage <= kills) [stage, inStage] = [stage + 1, 0]
  }
  if (stage <= kills)
    throw new Error(`the workload's ${messages.length} messages make ${stage} full stages; ${kills} kills need ${kills + 1}`)
  return { messages, bursts }
}

/** Chat `c`'s messages grouped into bursts: one at a time, or 2 or 3 at a time in a burst chat. */
function chatBursts(c: number, random: () => number): InboundEvent[][] {
  const chatId = `c${c}`
  const events = Array.from({ length: KILL_NINE_PER_CHAT }, (_, n) => ({ id: `c${c}.m${n}`, chatId, text: `c${c} m${n}` }))
  if (c % BURST_CHAT_EVERY !== 0) return events.map((event) => [event])
  const bursts: InboundEvent[][] = []
  for (let from = 0; from < events.length;) {
    const size = Math.min(pick(random, 2, BURST_MAX), events.length - from)
    bursts.push(events.slice(from, from + size))
    from += size
  }
  return bursts
}
