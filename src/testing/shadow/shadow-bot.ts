/**
 * The bot a shadow run feeds: a fresh `Bot` without durability, built by the module's own
 * `define(bot)`, on a recording provider and a copy-on-write store. It runs one message at a time
 * and says what that message's handler sent and whether it threw.
 */
import { Bot } from '../../core/bot/bot.js'
import type { InboxRecord } from '../../core/durability/journal/records.js'
import { replayedEvent } from '../../core/provider/media.js'
import { resolveNamespace, type NamespaceOptions } from '../../core/bot/namespace.js'
import type { Store } from '../../core/store/store.js'
import { CopyOnWriteStore } from './copy-on-write-store.js'
import { SHADOW_LIMITS } from './limits.js'
import { RecordingProvider, type RecordedSend } from './recording-provider.js'

/** Registers a bot's handlers, flows and hooks: the function a deployment calls before `bot.start()`. */
export type DefineBot = (bot: Bot) => void | Promise<void>

/** What one message did under the new code. */
export interface ShadowRun {
  /** The sends its handler made, in order. */
  sends: RecordedSend[]
  /** What its handler threw (the first error reported while it ran), if anything. */
  error?: unknown
}

export class ShadowBot {
  readonly #errors: unknown[] = []

  private constructor(
    private readonly bot: Bot,
    private readonly provider: RecordingProvider,
  ) {
    bot.on('error', (error) => this.#errors.push(error))
  }

  /** A started bot in `scope`'s namespace (so it reads the store's data of that bot), defined by `define`. */
  static async start(options: { scope: string; providerName: string; store: Store; define: DefineBot }): Promise<ShadowBot> {
    const provider = new RecordingProvider(options.providerName)
    const bot = new Bot({
      provider,
      store: new CopyOnWriteStore(options.store),
      ...namespaceOf(options.scope),
      // The new code's warnings are not the report's; its errors are, through 'error'.
      logger: { warn: () => {}, error: () => {} },
    })
    const shadow = new ShadowBot(bot, provider)
    await options.define(bot)
    await bot.start()
    return shadow
  }

  /** Runs one recorded message through the new code and waits until its work settled. */
  async run(record: InboxRecord): Promise<ShadowRun> {
    this.#errors.length = 0
    this.provider.take()
    try {
      await this.provider.deliver(replayedEvent(record.event, this.provider))
      await this.bot.idle(SHADOW_LIMITS.messageTimeoutMs)
    } catch (error) {
      this.#errors.push(error)
    }
    const sends = this.provider.take()
    return this.#errors.length > 0 ? { sends, error: this.#errors[0] } : { sends }
  }

  async stop(): Promise<void> {
    await this.bot.stop()
  }
}

/** The namespace a scope id names (`tenant/environment/bot/connection`); the defaults for any other id. */
function namespaceOf(scope: string): NamespaceOptions {
  const parts = scope.split('/')
  if (parts.length !== 4) return {}
  const [tenantId, environmentId, botId, connectionId] = parts as [string, string, string, string]
  try {
    return resolveNamespace({ tenantId, environmentId, botId, connectionId })
  } catch {
    return {}
  }
}
