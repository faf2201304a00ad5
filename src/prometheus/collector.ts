/**
 * A running bot's figures for Prometheus, in the operator's own prom-client registry: the bot's
 * `metrics()` counters, and the journal's records per state (read from the backend's index counts
 * at each scrape, so a million records cost what ten do). prom-client is an optional peer: it is
 * loaded here, only when this is used, and `botmesh/core` never imports this module.
 */
import type { Registry } from 'prom-client'
import type { Bot } from '../core/bot/bot.js'
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import { METRIC_NAMES } from '../core/durability/metrics.js'
import { INBOX_STATES, OUTBOX_STATES } from '../core/durability/journal/records.js'
import { loadDriver } from '../core/platform/driver.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'

/** What the figures are read from and where they go. */
export interface BotMetricsOptions {
  /** A bot created with `durability` (its counters are `bot.durability.metrics()`). */
  bot: Bot
  /** The backend the bot journals to (its `durability.backend`): the records per state come from it. */
  backend: DurabilityBackend
  /** The prom-client registry the collectors join. */
  registry: Registry
  /** Prefix of every metric name. @default 'botmesh_' */
  prefix?: string
}

/** The prefix of every metric name unless told. */
export const PROMETHEUS_PREFIX_DEFAULT = 'botmesh_'

/**
 * Registers the bot's collectors in `options.registry`: one counter per metric
 * (`botmesh_inbound_journaled_total{scope}` …) and `botmesh_journal_records{scope,kind,state}`.
 * Resolves once registered; the values are read at each scrape.
 */
export async function registerBotMetrics(options: BotMetricsOptions): Promise<void> {
  const durability = options.bot.durability
  if (!durability)
    throw new BotmeshError(
      ERROR_CODES.CONFIG_INVALID,
      'registerBotMetrics needs a bot created with the durability option: a bot without it has no counters or journal',
    )
  const client = await loadPromClient()
  const prefix = options.prefix ?? PROMETHEUS_PREFIX_DEFAULT
  const scope = durability.scope
  const registers = [options.registry]
  for (const name of METRIC_NAMES) {
    new client.Counter({
      name: `${prefix}${snake(name)}_total`,
      help: `The bot's ${name} counter since it started.`,
      labelNames: ['scope'],
      registers,
      collect() {
        // The bot keeps the count; the counter is set to it at each scrape.
        this.reset()
        this.inc({ scope }, durability.metrics()[name])
      },
    })
  }
  const journal = options.backend.journal(scope)
  new client.Gauge({
    name: `${prefix}journal_records`,
    help: 'Journal records by kind and state (from the index counts).',
    labelNames: ['scope', 'kind', 'state'],
    registers,
    async collect() {
      const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
      this.reset()
      for (const state of INBOX_STATES) this.set({ scope, kind: 'inbox', state }, inbox[state] ?? 0)
      for (const state of OUTBOX_STATES) this.set({ scope, kind: 'outbox', state }, outbox[state] ?? 0)
    },
  })
}

/** prom-client, loaded on first use; a sentence saying what to install when it is missing. */
export async function loadPromClient(): Promise<typeof import('prom-client')> {
  const loaded = (await loadDriver({
    packageName: 'prom-client',
    neededBy: 'botmesh/prometheus',
    load: () => import('prom-client'),
  })) as typeof import('prom-client') & {
    default?: typeof import('prom-client')
  }
  return loaded.default ?? loaded
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
}
