/**
 * The provider tests' harness: bots that are stopped after each test, a MockProvider that speaks a
 * channel's codec (serializeMediaRef, rehydrateMediaRef, and a download keyed by what the channel
 * would fetch), and an IMAGE-or-DOCUMENT handler that records what each run could download.
 */
import { afterEach } from 'vitest'
import { Bot, type BotConfig } from '../../src/core/bot/bot.js'
import type { Context } from '../../src/core/bot/context.js'
import { DOCUMENT, IMAGE } from '../../src/core/bot/matchers.js'
import { loadMediaOf } from '../../src/core/provider/media.js'
import { ProviderError } from '../../src/core/provider/provider-errors.js'
import type { MediaRef } from '../../src/core/provider/provider.js'
import type { MockProvider } from '../../src/testing/mock-provider.js'
import type { ChannelFixture } from './fixtures/channels.js'

/** Durations small enough that a test runs in milliseconds. */
export const FAST = {
  pollMs: 10,
  inbox: { leaseMs: 300, backoff: { baseMs: 5, capMs: 20, jitter: 0 } },
  outbox: { leaseMs: 300, backoff: { baseMs: 5, capMs: 20, jitter: 0 }, inlineMaxMs: 2000 },
} as const

/** Bots started by a test file; every bot not abandoned is stopped after each test. */
export function useBots(): { start(config: BotConfig, setup?: (bot: Bot) => void): Promise<Bot>; abandon(bot: Bot): void } {
  const live = new Set<Bot>()
  afterEach(async () => {
    const bots = [...live]
    live.clear()
    await Promise.all(bots.map((bot) => bot.stop()))
  })
  return {
    async start(config, setup) {
      const bot = new Bot({ logger: { warn() {}, error() {} }, ...config })
      setup?.(bot)
      live.add(bot)
      await bot.start()
      return bot
    },
    // A crashed bot is never stopped: its journal calls never settle.
    abandon: (bot) => void live.delete(bot),
  }
}

/** Makes `provider` speak `fixture`'s codec, serving `bytes` by what a download of a token fetches. */
export function speak<P extends MockProvider>(provider: P, fixture: ChannelFixture, bytes: Map<string, Buffer>): P {
  provider.serializeMediaRef = (media: MediaRef) => fixture.codec.serialize(media)
  provider.rehydrateMediaRef = (stored, media) => fixture.codec.rehydrate(stored, media)
  provider.download = async (media: MediaRef) => {
    const found = bytes.get(fixture.identity(media.token))
    if (!found) throw new ProviderError('MEDIA_NOT_FOUND', 'no such media (scripted)', { retryable: false })
    return found
  }
  return provider
}

/** What the handler saw of one run. */
export interface Seen {
  token: unknown
  media: Buffer | undefined
  error: unknown
}

/** Registers a handler for media messages that records what loadMediaOf gives and throws. */
export function recordMedia(seen: Seen[]): (bot: Bot) => void {
  return (bot) => {
    const handler = async (ctx: Context) => {
      const media = await loadMediaOf(ctx)
      const error = await loadMediaOf(ctx, { throwOnError: true }).then(
        () => undefined,
        (e: unknown) => e,
      )
      seen.push({ token: ctx.message.media?.token, media, error })
      await ctx.reply(media ? 'got it' : 'please send it again')
    }
    bot.when(IMAGE, handler)
    bot.when(DOCUMENT, handler)
  }
}
