/**
 * The demo's simulated channel: a MockProvider with a few chats' worth of scripted trouble —
 * transient failures, rate limits, a recipient who cannot be reached — and media it can serve.
 */
import { ERROR_CODES } from '../core/errors.js'
import { ProviderError, RecipientUnreachableError } from '../core/provider-errors.js'
import type { InboundEvent } from '../core/provider.js'
import { MockProvider } from '../core/testing/mock-provider.js'

/** The chats of the demo and what each one does. */
export const DEMO_CHATS = {
  alice: 'chats normally',
  bob: 'signs up through a persistent flow',
  carol: 'sends a photo',
  dave: 'has a flaky connection (transient failures)',
  erin: 'hits the rate limit',
  frank: 'cannot be reached (his sends dead-letter)',
  grace: 'her CRM record is broken (her message dead-letters before any handler)',
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

/** The inbound stream, in order. The same ids on every run: a restarted channel redelivers them. */
export function demoMessages(): InboundEvent[] {
  const events: InboundEvent[] = []
  const say = (chatId: string, text: string) => events.push({ id: `demo.${chatId}.${events.length + 1}`, chatId, text })
  say('alice', 'hello')
  say('bob', 'signup')
  say('carol', 'look at this')
  events.push({
    id: 'demo.carol.photo',
    chatId: 'carol',
    media: { type: 'image', token: { id: 'photo-1', live: true }, mimeType: 'image/jpeg' },
  })
  say('dave', 'are you there?')
  say('bob', 'Bob')
  say('erin', 'what are your opening hours?')
  say('frank', 'hi')
  say('grace', 'update my address')
  say('alice', 'tell me a long story')
  say('bob', 'bob@example.com')
  for (let n = 1; n <= 12; n++) say(['alice', 'dave', 'erin', 'carol'][n % 4]!, `question ${n}`)
  return events
}

/** Endless traffic after the story, so the dashboard stays alive: the story's messages again, under fresh ids (round `round`). */
export function liveMessages(round: number): InboundEvent[] {
  return demoMessages().map((event) => ({ ...event, id: `live.${round}.${event.id}` }))
}
