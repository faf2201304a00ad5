/**
 * `botmesh/prometheus` on a real bot journaling to SQLite: the `/metrics` listener is scraped over
 * HTTP and the exposition text parsed (the bot's counters and the journal's records per state);
 * the collectors join an operator's own registry; and `botmesh/core` never loads prom-client.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { afterAll, describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot, TEXT } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/index.js'
import { registerBotMetrics, serveMetrics } from '../../src/prometheus/index.js'
import { waitFor } from '../../test-utils/wait.js'

const ROOT = join(import.meta.dirname, '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'botmesh-prometheus-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Samples of the exposition text: `name{labels} value` → value, keyed by `name{labels}` as printed. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line)
    if (!match) throw new Error(`not an exposition line: ${line}`)
    samples.set(match[1]!, Number(match[2]))
  }
  return samples
}

/** A bot on a SQLite journal of its own that has handled one message. */
async function botThatHandledOne(name: string) {
  const store = new SQLiteStore({ file: join(dir, `${name}.db`) })
  const backend = store.durability()
  const provider = new MockProvider()
  const bot = new Bot({ provider, store, botId: name, durability: { backend, instanceId: `${name}-1` } })
  bot.when(TEXT, async (ctx) => {
    await ctx.reply(`echo: ${ctx.message.text}`)
  })
  await bot.start()
  await provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
  await waitFor(() => provider.texts('c1').includes('echo: hi'))
  await bot.idle()
  return { bot, backend }
}

describe('botmesh/prometheus', () => {
  it('serveMetrics: a scrape of /metrics on 127.0.0.1 gives the counters and the records per state', async () => {
    const { bot, backend } = await botThatHandledOne('support')
    const listener = await serveMetrics({ bot, backend, port: 0 })
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
      const response = await fetch(listener.url)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toContain('text/plain')
      const samples = parseExposition(await response.text())
      const scope = bot.durability!.scope
      expect(samples.get(`botmesh_inbound_journaled_total{scope="${scope}"}`)).toBe(1)
      expect(samples.get(`botmesh_journal_records{scope="${scope}",kind="inbox",state="done"}`)).toBe(1)
      expect(samples.get(`botmesh_journal_records{scope="${scope}",kind="inbox",state="dead"}`)).toBe(0)
      expect(samples.get(`botmesh_journal_records{scope="${scope}",kind="outbox",state="sent"}`)).toBe(1)
      expect((await fetch(listener.url.replace('/metrics', '/other'))).status).toBe(404)
    } finally {
      await listener.close()
      await bot.stop()
    }
  })

  it("registerBotMetrics: the collectors join the operator's registry", async () => {
    const { bot, backend } = await botThatHandledOne('sales')
    try {
      const registry = new Registry()
      await registerBotMetrics({ bot, backend, registry, prefix: 'app_' })
      const samples = parseExposition(await registry.metrics())
      expect(samples.get(`app_outbox_journaled_total{scope="${bot.durability!.scope}"}`)).toBe(1)
    } finally {
      await bot.stop()
    }
  })

  it('importing botmesh/core or botmesh/prometheus does not load prom-client; using it does', () => {
    const script = `
      import { createRequire } from 'node:module'
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes('/node_modules/prom-client/'))
      await import('./src/core/index.ts')
      const afterCore = loaded()
      const { serveMetrics } = await import('./src/prometheus/index.ts')
      const afterImport = loaded()
      // Refused (no durability), but only after prom-client was loaded to build the registry.
      const refused = await serveMetrics({ bot: {}, backend: {}, port: 0 }).then(() => 'served', (error) => error.code)
      console.log(JSON.stringify({ afterCore, afterImport, refused, afterUse: loaded() }))`
    const output = execFileSync(process.execPath, ['--import', './test-utils/ts-loader.mjs', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    })
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({
      afterCore: false,
      afterImport: false,
      refused: 'CONFIG_INVALID',
      afterUse: true,
    })
  })
})
