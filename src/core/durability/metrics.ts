/** The durability counters of one bot (`bot.durability.metrics()`): the counters docs/operating.md lists, `outboxReconciled` among them. */
export const METRIC_NAMES = [
  'inboundJournaled',
  'inboundDuplicates',
  'inboundReplayed',
  'inboundDead',
  'outboxJournaled',
  'outboxDeduped',
  'outboxRetried',
  'outboxDeferred',
  'outboxDead',
  'outboxAmbiguous',
  'outboxBypassed',
  'staleLeases',
  'outboxDiverged',
  'outboxReconciled',
] as const

/** The name of one durability counter. */
export type MetricName = (typeof METRIC_NAMES)[number]
/** Every durability counter with its value since the bot started. */
export type DurabilityMetrics = Record<MetricName, number>

/** Counters since the bot started. */
export class Metrics {
  readonly #counts: DurabilityMetrics = Object.fromEntries(METRIC_NAMES.map((name) => [name, 0])) as DurabilityMetrics

  increment(name: MetricName, by = 1): void {
    this.#counts[name] += by
  }

  snapshot(): DurabilityMetrics {
    return { ...this.#counts }
  }
}
