/**
 * `botmesh/telemetry` on a real bot journaling in memory, traced by OpenTelemetry's SDK into its
 * in-memory exporter: one message yields admit → handler → send, parented in that order in one
 * trace; each message is its own trace (one queued behind its chat's unfinished message too);
 * without an SDK the tracing records nothing and the bot works as before. On both engines: the
 * steps engine (BOTMESH_ENGINE=steps) starts a queued message's run in its admission's span, not in
 * the settle of the message before it.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it, vi } from 'vitest'
import { Bot, TEXT } from '../../src/core/index.js'
import type { EngineName } from '../../src/core/durability/engine-choice.js'
import { onEngine } from '../../test-utils/engine.js'
import { StepsEngine } from '../../src/core/durability/steps/steps-engine.js'
import { MockProvider } from '../../src/testing/index.js'
import { openTelemetryTracing } from '../../src/telemetry/index.js'
import { waitFor } from '../../test-utils/wait.js'

/** A durable bot traced by `tracing`, echoing texts ("boom" throws). */
async function tracedBot(tracing: Awaited<ReturnType<typeof openTelemetryTracing>>) {
  const provider = new MockProvider()
  const bot = new Bot({ provider, botId: 'traced', durability: { tracing, inbox: { maxAttempts: 1 } } })
  bot.on('error', () => {}) // "boom" is expected to fail
  bot.when(TEXT, async (ctx) => {
    if (ctx.message.text === 'boom') throw new Error('handler broke')
    await ctx.reply(`echo: ${ctx.message.text}`)
  })
  await bot.start()
  return { bot, provider }
}

function withSdk() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { exporter, tracerProvider }
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

for (const engine of ['message', 'steps'] satisfies EngineName[])
  describe(`OpenTelemetry spans (${engine} engine)`, () => {
    onEngine(engine)

    it('one message yields admit → handler → send, each the parent of the next, in one trace', async () => {
      const { exporter, tracerProvider } = withSdk()
      const stepsAdmits = vi.spyOn(StepsEngine.prototype, 'admit')
      const { bot, provider } = await tracedBot(await openTelemetryTracing({ tracerProvider }))
      try {
        await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
        expect(stepsAdmits).toHaveBeenCalledTimes(engine === 'steps' ? 1 : 0)
        stepsAdmits.mockRestore()
        await waitFor(() => provider.texts('c1').includes('echo: hi'))
        await bot.idle()
        await waitFor(() => exporter.getFinishedSpans().length >= 3)
        const spans = exporter.getFinishedSpans()
        const byName = Object.fromEntries(spans.map((span) => [span.name, span]))
        expect(spans.map((span) => span.name).sort()).toEqual(['botmesh.admit', 'botmesh.handler', 'botmesh.send'])
        const [admit, handler, send] = [byName['botmesh.admit']!, byName['botmesh.handler']!, byName['botmesh.send']!]
        expect(parentOf(admit)).toBeUndefined()
        expect(parentOf(handler)).toBe(admit.spanContext().spanId)
        expect(parentOf(send)).toBe(handler.spanContext().spanId)
        expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1)
        expect(admit.attributes).toMatchObject({ 'botmesh.chat_id': 'c1', 'botmesh.provider': provider.name })
        expect(handler.attributes['botmesh.inbound_id']).toBe(admit.attributes['botmesh.inbound_id'])
        expect(handler.attributes['botmesh.replay']).toBe(false)
        expect(send.attributes['botmesh.send.key']).toEqual(expect.any(String))
      } finally {
        await bot.stop()
      }
    })

    it('a handler that throws still has its span; each message is its own trace', async () => {
      const { exporter, tracerProvider } = withSdk()
      const { bot, provider } = await tracedBot(await openTelemetryTracing({ tracerProvider }))
      try {
        await provider.receive({ id: 'm2', chatId: 'c2', text: 'boom' })
        await bot.idle()
        await provider.receive({ id: 'm3', chatId: 'c2', text: 'after' })
        await waitFor(() => provider.texts('c2').includes('echo: after'))
        await bot.idle()
        await waitFor(() => exporter.getFinishedSpans().length >= 5)
        const handlers = exporter.getFinishedSpans().filter((span) => span.name === 'botmesh.handler')
        expect(handlers).toHaveLength(2)
        const traces = new Set(exporter.getFinishedSpans().map((span) => span.spanContext().traceId))
        expect(traces.size).toBe(2)
      } finally {
        await bot.stop()
      }
    })

    it("a message queued behind its chat's unfinished one runs in its own trace, not in the one before it", async () => {
      const { exporter, tracerProvider } = withSdk()
      const { bot, provider } = await tracedBot(await openTelemetryTracing({ tracerProvider }))
      try {
        await Promise.all(['a', 'b', 'c'].map((text, n) => provider.receive({ id: `q${n}`, chatId: 'cq', text })))
        await waitFor(() => provider.texts('cq').length === 3)
        await bot.idle()
        await waitFor(() => exporter.getFinishedSpans().length >= 9)
        const spans = exporter.getFinishedSpans()
        const admitOf = new Map(
          spans.filter((span) => span.name === 'botmesh.admit').map((span) => [span.attributes['botmesh.inbound_id'], span]),
        )
        const handlers = spans.filter((span) => span.name === 'botmesh.handler')
        expect(handlers).toHaveLength(3)
        for (const handler of handlers) {
          const admit = admitOf.get(handler.attributes['botmesh.inbound_id'])!
          expect(parentOf(handler)).toBe(admit.spanContext().spanId)
          expect(handler.spanContext().traceId).toBe(admit.spanContext().traceId)
        }
        expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(3)
      } finally {
        await bot.stop()
      }
    })

    it('without an SDK registered the spans go nowhere and the bot answers as before', async () => {
      const { bot, provider } = await tracedBot(await openTelemetryTracing())
      try {
        await provider.receive({ id: 'm4', chatId: 'c4', text: 'plain' })
        await waitFor(() => provider.texts('c4').includes('echo: plain'))
      } finally {
        await bot.stop()
      }
    })
  })
