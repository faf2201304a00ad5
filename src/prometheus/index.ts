/**
 * `botmesh/prometheus`: a running bot's metrics and journal counts for Prometheus (needs prom-client).
 *
 * @module botmesh/prometheus
 */
export { registerBotMetrics, PROMETHEUS_PREFIX_DEFAULT, type BotMetricsOptions } from './collector.js'
export { serveMetrics, METRICS_LISTENER_DEFAULTS, type MetricsListener, type MetricsListenerOptions } from './listener.js'
