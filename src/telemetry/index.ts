/**
 * `botmesh/telemetry`: OpenTelemetry spans for each message's admission, handler run and sends (needs @opentelemetry/api).
 *
 * @module botmesh/telemetry
 */
export { openTelemetryTracing, TRACER_NAME_DEFAULT, TRACING_LIMITS, type OpenTelemetryTracingOptions } from './opentelemetry.js'
export type { MessageTracing, TracedMessage, TracedSend } from '../core/durability/tracing.js'
