/**
 * The demo's simulated channel: a MockProvider with a few chats' worth of scripted trouble —
 * transient failures, rate limits, a recipient who cannot be reached — and media it can serve.
 */
import { ERROR_CODES } from '../core/errors/errors.js'
import { ProviderError, RecipientUnreachableError } from '../core/provider/provider-errors.js'
import type { InboundEvent } from '../core/provider/provider.js'
import { MockProvider } from '../testing/mock-provider.js'

/** The chats of the demo and what each one does. */
export const DEMO_CHATS = {
  alice: 'chats normally',
  bob: 'signs up through a persistent flow',
  carol: 'sends a photo',
  dave: 'has a flaky connection (transient failures)',
  erin: 'hits the rate limit',
  frank: 'cannot be reached (his sends dead-letter)',
  grace: 'her CRM record is broken (her message dead-letters before any handler)',
  heidi: 'books a table: her reply is sent, then the bot is killed before her handler completes',
} as const

export function demoProvider(): MockProvider {
  const provider = new MockProvider({ name: 'demo-channel', textLimit: 160, latencyMs: 15 })
  const to = (chat: string) => (chatId: string) => chatId === chat
  provider.failNext(4, new ProviderError(ERROR_CODES.UPSTREAM_TIMEOUT, 'the channel timed out'), to('dave'))
  provider.rateLimitNext(2, 1_500, to('erin'))
  provider.failNext(1_000, new RecipientUnreachableError('frank blocked the bot'), to('frank'))
  provider.media.set('photo-1', Buffer.from('a small demo photo'))
  return provider
}

/** A step of the story the first bot process tells before its crash, as the dashboard announces it. */
export interface DemoStep {
  name: 'messages' | 'flow' | 'failing send' | 'crash'
  /** The announcement. */
  says: string
  events: InboundEvent[]
}

/** The chat whose handler sends its reply and is killed before it completes; its replay is answered from the outbox. */
export const CRASH_CHAT = 'heidi'

/** The story's steps, in order. The same ids on every run: a restarted channel redelivers them. */
export function demoSteps(): DemoStep[] {
  const say = (n: number, chatId: string, text: string): InboundEvent => ({ id: `demo.${chatId}.${n}`, chatId, text })
  const photo: InboundEvent = {
    id: 'demo.carol.photo',
    chatId: 'carol',
    media: { type: 'image', token: { id: 'photo-1', live: true }, mimeType: 'image/jpeg' },
  }
  return [
    {
      name: 'messages',
      says: 'messages: alice chats, carol sends a photo; each is journaled in the inbox before the bot answers',
      events: [say(1, 'alice', 'hello'), say(3, 'carol', 'look at this'), photo, say(10, 'alice', 'tell me a long story')],
    },
    {
      name: 'flow',
      says: 'a flow: bob signs up through a persistent flow, one question at a time',
      events: [say(2, 'bob', 'signup'), say(6, 'bob', 'Bob'), say(11, 'bob', 'bob@example.com')],
    },
    {
      name: 'failing send',
      says: "a failing send: the channel times out for dave and rate-limits erin (retried), refuses frank (a dead letter); grace's record is broken (a dead letter)",
      events: [
        say(5, 'dave', 'are you there?'),
        say(7, 'erin', 'what are your opening hours?'),
        say(8, 'frank', 'hi'),
        say(9, 'grace', 'update my address'),
      ],
    },
    {
      name: 'crash',
      says: `the crash: ${CRASH_CHAT}'s reply is sent, then the bot process is killed with SIGKILL before her handler completes`,
      events: [say(24, CRASH_CHAT, 'book a table for two')],
    },
  ]
}

/** What the channel delivers after the restart for the first time. */
export function laterMessages(): InboundEvent[] {
  return Array.from({ length: 12 }, (_, index) => {
    const chatId = ['alice', 'dave', 'erin', 'carol'][(index + 1) % 4]!
    return { id: `demo.${chatId}.${index + 12}`, chatId, text: `question ${index + 1}` }
  })
}

/** The inbound stream, in order: the story's steps, then the later messages. */
export function demoMessages(): InboundEvent[] {
  return [...demoSteps().flatMap((step) => step.events), ...laterMessages()]
}

/** Endless traffic after the story, so the dashboard stays alive: the story's messages again, under fresh ids (round `round`). */
export function liveMessages(round: number): InboundEvent[] {
  return demoMessages().map((event) => ({ ...event, id: `live.${round}.${event.id}` }))
}
