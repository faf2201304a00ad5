/**
 * The crash matrix's crash loop: a chat whose first message crashes the process on every run, with
 * two messages behind it, all three redelivered after every crash. After `WORKLOAD_MAX_ATTEMPTS`
 * charged runs the first one is dead-lettered alone, and the two behind it are answered once, in
 * order. A case with `crashLoop` delivers the chat; its generations go on past the case's armed
 * crashes until the bot stops.
 */
import type { Journal } from '../../core/durability/journal/backend.js'
import { inboxRecordId } from '../../core/durability/outbox/keys.js'
import type { InboundEvent } from '../../core/provider/provider.js'

export const CRASH_LOOP_CHAT = 'c-crashloop'
/** The workload bot's inbox.maxAttempts: the runs the crash loop's head is charged before it is dead. */
export const WORKLOAD_MAX_ATTEMPTS = 3
/** Generations a crash-loop case adds: one crash per charged run of the head, and the run that finds it dead. */
export const CRASH_LOOP_GENERATIONS = WORKLOAD_MAX_ATTEMPTS + 1
/** The text of the message that crashes the process. */
export const CRASH_LOOP_TEXT = 'crashloop'

/** The chat's messages, in arrival order; their ids sort against it ('c-crashloop.10' < 'c-crashloop.9'). */
export function crashLoopMessages(): InboundEvent[] {
  return [CRASH_LOOP_TEXT, 'after crash 1', 'after crash 2'].map((text, n) => ({
    id: `${CRASH_LOOP_CHAT}.${9 + n}`,
    chatId: CRASH_LOOP_CHAT,
    text,
  }))
}

/** The record id of the message that crashes the process (it must end dead). */
export function crashLoopHead(): string {
  return inboxRecordId('mock', CRASH_LOOP_CHAT, crashLoopMessages()[0]!.id)
}

/** The sends the crash loop must make exactly once: the two messages behind the head, echoed. */
export function crashLoopSends(): { chatId: string; text: string; key: string }[] {
  return crashLoopMessages()
    .slice(1)
    .map((event) => ({ chatId: CRASH_LOOP_CHAT, text: event.text!, key: `${inboxRecordId('mock', CRASH_LOOP_CHAT, event.id)}:1` }))
}

/**
 * The head's handler: it crashes the process once the chat's later messages are journaled (so the
 * crash always leaves them queued behind it), and never returns.
 */
export function crashLoopHandler(journal: Journal, crash: () => void): () => Promise<void> {
  const behind = crashLoopMessages()
    .slice(1)
    .map((event) => inboxRecordId('mock', CRASH_LOOP_CHAT, event.id))
  return async () => {
    for (let look = 0; look < 200; look++) {
      const found = await journal.read('inbox', behind)
      if (found.every(Boolean)) break
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    crash()
    await new Promise(() => {})
  }
}
