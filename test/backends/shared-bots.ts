/**
 * Bots in this process on a shared backend, each on a backend object of its own over one storage (as
 * separate processes would be), tapped to count sweeps and see the records each one wrote. After each
 * test the live bots stop first, then the storage is released and deleted.
 */
import { afterEach } from 'vitest'
import { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { DurabilityOptions } from '../../src/core/durability/config.js'
import type { NamespaceOptions } from '../../src/core/bot/namespace.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { TapBackend } from '../core/helpers.js'
import type { SharedStorage, SharedTarget } from './shared-targets.js'

/** Short periods for tests on a real server (a sweep every 50 ms; no jitter). */
export function quick(overrides: DurabilityOptions = {}): DurabilityOptions {
  const backoff = { baseMs: 5, capMs: 20, jitter: 0 }
  return {
    pollMs: 50,
    ...overrides,
    inbox: { leaseMs: 1_000, backoff, ...overrides.inbox },
    outbox: { leaseMs: 1_000, backoff, inlineMaxMs: 5_000, ...overrides.outbox },
  }
}

export interface SharedBot {
  bot: Bot
  provider: MockProvider
  tap: TapBackend
  errors: unknown[]
}

export interface SharedBotSpec extends NamespaceOptions {
  /** The backend under the tap (default: a new backend object over the test's storage). */
  backend?: DurabilityBackend
  durability: DurabilityOptions
  setup?: (bot: Bot) => void
}

export function useSharedBots(): {
  /** Fresh storage on the target for this test. */
  storage(target: SharedTarget): SharedStorage
  start(storage: SharedStorage, spec: SharedBotSpec): Promise<SharedBot>
  /** A crashed bot is never stopped (its journal calls never settle); its backend is released with the storage. */
  abandon(bot: SharedBot): void
} {
  const live = new Set<SharedBot>()
  const storages: SharedStorage[] = []
  afterEach(async () => {
    const bots = [...live]
    live.clear()
    await Promise.all(bots.map((t) => t.bot.stop()))
    for (const storage of storages.splice(0)) await storage.cleanup()
  }, 60_000)
  return {
    storage(target) {
      const storage = target.fresh()
      storages.push(storage)
      return storage
    },
    async start(storage, spec) {
      const { backend = storage.open(), durability, setup, ...namespace } = spec
      const tap = new TapBackend(backend)
      const provider = new MockProvider()
      const errors: unknown[] = []
      const bot = new Bot({
        ...namespace,
        provider,
        durability: { ...durability, backend: tap },
        logger: { warn: () => {}, error: (m, e) => errors.push(e ?? m) },
      })
      bot.on('error', (error) => errors.push(error))
      setup?.(bot)
      const t: SharedBot = { bot, provider, tap, errors }
      live.add(t)
      await bot.start()
      return t
    },
    abandon(t) {
      live.delete(t)
    },
  }
}

/** Waits until the bot's sweeper has completed `n` more sweeps (each sweep starts with a clock sync). */
export async function sweeps(t: SharedBot, n: number, timeoutMs = 20_000): Promise<void> {
  const target = t.tap.count('now') + n + 1
  await waitFor(() => t.tap.count('now') >= target, { timeoutMs, message: `${n} sweeps` })
}
