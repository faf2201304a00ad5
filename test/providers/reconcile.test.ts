/**
 * The ambiguous window closed where the channel echoes us: WhatsApp Cloud (the outbox key in
 * `biz_opaque_callback_data`) and Twilio (in each send's `StatusCallback` URL). The process dies
 * between the provider call and `outbox.markSent`; on restart, the channel's status naming the key
 * settles the send as `sent` with the channel's message id (`durability:reconciled`,
 * `outboxReconciled`), so the reply is delivered exactly once under both `onAmbiguous` policies,
 * where without the status it is lost under 'skip' or doubled under 'resend'. Each case runs on
 * MemoryDurability and on SQLite; the totals are printed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { DurabilityBackend } from '../../src/core/durability/backend.js'
import { MemoryDurability } from '../../src/core/index.js'
import type { IProvider } from '../../src/core/provider.js'
import { MemoryStore } from '../../src/core/store.js'
import { crashable } from '../../src/core/testing/crashable.js'
import { MetaCloudProvider } from '../../src/providers/meta/index.js'
import { TwilioProvider } from '../../src/providers/twilio/index.js'
import { waitFor } from '../../test-utils/wait.js'
import { FakeGraph } from './fixtures/fake-graph.js'
import { ACCOUNT_SID, AUTH_TOKEN, FakeTwilio, TWILIO_NUMBER, sendStatuses } from './fixtures/fake-twilio.js'
import { PHONE_NUMBER_ID, postWebhook, statusesPayload } from './fixtures/meta-webhooks.js'
import { FAST, useBots } from './harness.js'

const META_TOKEN = 'EAAG-reconcile-token'
const APP_SECRET = 'app-secret-reconcile'
const PUBLIC_URL = 'https://bot.example.com/twilio'
const USER = { meta: '5511999999999', twilio: '+5511999990000' }
const bots = useBots()
const dir = mkdtempSync(join(tmpdir(), 'botmesh-reconcile-'))
const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()))
})
/** delivered / lost / duplicated per channel, policy and whether the status came. */
const figures = new Map<string, { runs: number; delivered: number; lost: number; duplicated: number }>()
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  const rows = [...figures].map(
    ([name, f]) => `${name}: ${f.runs} runs, delivered once ${f.delivered}, lost ${f.lost}, duplicated ${f.duplicated}`,
  )
  console.info(`reconciled crash cases (crash before outbox.markSent)\n${rows.join('\n')}`)
})

/** A channel under test: its fake, its provider, and the statuses its fake sends to a provider. */
interface Channel {
  name: 'meta' | 'twilio'
  start(): Promise<{
    provider(): IProvider & { stop(): Promise<void>; webhookOrigin: string | undefined }
    delivered(): string[]
    ids(): string[]
    statuses(origin: string): Promise<number[]>
  }>
}

const channels: Channel[] = [
  {
    name: 'meta',
    async start() {
      const graph = await new FakeGraph(META_TOKEN, PHONE_NUMBER_ID).start()
      stops.push(() => graph.stop())
      return {
        provider: () => {
          const p = new MetaCloudProvider({
            accessToken: META_TOKEN,
            phoneNumberId: PHONE_NUMBER_ID,
            appSecret: APP_SECRET,
            verifyToken: 'v',
            webhook: { port: 0, host: '127.0.0.1' },
            graphApiRoot: graph.origin,
            onError: () => undefined,
          })
          stops.push(() => p.stop())
          return p
        },
        delivered: () => graph.texts(),
        ids: () => graph.sent.map((s) => s.id),
        async statuses(origin) {
          const statuses = graph.sent.map((s) => ({ id: s.id, status: 'sent', biz_opaque_callback_data: s.body.biz_opaque_callback_data }))
          return [(await postWebhook(origin, statusesPayload(statuses), APP_SECRET)).status]
        },
      }
    },
  },
  {
    name: 'twilio',
    async start() {
      const twilio = await new FakeTwilio().start()
      stops.push(() => twilio.stop())
      return {
        provider: () => {
          const p = new TwilioProvider({
            accountSid: ACCOUNT_SID,
            authToken: AUTH_TOKEN,
            from: TWILIO_NUMBER,
            webhook: { port: 0, host: '127.0.0.1', publicUrl: PUBLIC_URL },
            apiOrigin: twilio.origin,
            onError: () => undefined,
          })
          stops.push(() => p.stop())
          return p
        },
        delivered: () => twilio.bodies().map(String),
        ids: () => twilio.sent.map((s) => s.sid),
        statuses: (origin) => sendStatuses(twilio, origin, PUBLIC_URL),
      }
    },
  },
]

const backends: [string, () => { backend: DurabilityBackend; store: MemoryStore | SQLiteStore }][] = [
  ['memory', () => ({ backend: new MemoryDurability(), store: new MemoryStore() })],
  [
    'sqlite',
    () => {
      const store = new SQLiteStore({ file: join(dir, `${Math.random().toString(36).slice(2)}.db`) })
      return { backend: store.durability(), store }
    },
  ],
]

describe.each(channels)('$name', (channel) => {
  async function crashThenRestart(policy: 'skip' | 'resend', make: (typeof backends)[number][1], reconcileMs: number) {
    const fake = await channel.start()
    const { backend, store } = make()
    const durability = { ...FAST, outbox: { ...FAST.outbox, onAmbiguous: policy, reconcileMs } }
    const a = crashable(backend).crashBefore('outbox.markSent')
    const firstProvider = fake.provider()
    const first = await bots.start({ provider: firstProvider, store, durability: { ...durability, backend: a, instanceId: 'r-1' } })
    await first.enqueue(USER[channel.name], 'your code is 1234', { idempotencyKey: 'otp:1' })
    await a.whenCrashed()
    bots.abandon(first)
    await firstProvider.stop()
    expect(fake.delivered()).toEqual(['your code is 1234'])
    const events = { reconciled: [] as unknown[], ambiguous: [] as unknown[] }
    const provider = fake.provider()
    const second = await bots.start({ provider, store, durability: { ...durability, backend, instanceId: 'r-1' } }, (b) => {
      b.on('durability:reconciled', (info) => events.reconciled.push(info))
      b.on('durability:ambiguous', (info) => events.ambiguous.push(info))
    })
    return { fake, second, provider, events }
  }

  function count(name: string, delivered: number) {
    const f = figures.get(name) ?? { runs: 0, delivered: 0, lost: 0, duplicated: 0 }
    f.runs++
    if (delivered === 1) f.delivered++
    if (delivered === 0) f.lost++
    if (delivered > 1) f.duplicated++
    figures.set(name, f)
  }

  describe.each(backends)('%s', (_backend, make) => {
    it.each(['skip', 'resend'] as const)(
      "onAmbiguous '%s': the channel's status settles the send; delivered exactly once",
      async (policy) => {
        const { fake, second, provider, events } = await crashThenRestart(policy, make, 30_000)
        expect(await fake.statuses(provider.webhookOrigin!)).toEqual([200])
        const record = await waitFor(async () => {
          const r = await second.durability!.outbox.get('otp:1')
          return r?.state === 'sent' ? r : undefined
        })
        expect(record.providerMessageId).toBe(fake.ids()[0])
        expect(record.audit?.map((e) => e.action)).toContain('reconciled')
        expect(events).toEqual({ reconciled: [{ key: 'otp:1', chatId: USER[channel.name], messageId: fake.ids()[0] }], ambiguous: [] })
        expect(second.durability!.metrics()).toMatchObject({ outboxReconciled: 1, outboxAmbiguous: 0 })
        await second.idle()
        expect(fake.delivered()).toEqual(['your code is 1234'])
        count(`${channel.name} ${policy} with the status`, fake.delivered().length)
      },
    )

    it.each(['skip', 'resend'] as const)(
      "onAmbiguous '%s' without a status: after reconcileMs the policy decides, as the contract says",
      async (policy) => {
        const { fake, second, events } = await crashThenRestart(policy, make, 300)
        const state = policy === 'skip' ? 'unknown' : 'sent'
        await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === state)
        expect(events.ambiguous).toEqual([{ key: 'otp:1', chatId: USER[channel.name] }])
        expect(fake.delivered()).toHaveLength(policy === 'skip' ? 1 : 2)
        count(`${channel.name} ${policy} without a status`, policy === 'skip' ? 0 : fake.delivered().length)
      },
    )
  })

  it("a status arriving after 'skip' marked the send unknown still settles it as sent", async () => {
    const { fake, second, provider } = await crashThenRestart('skip', backends[0]![1], 0)
    await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === 'unknown')
    expect(await fake.statuses(provider.webhookOrigin!)).toEqual([200])
    await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === 'sent')
    expect(second.durability!.metrics()).toMatchObject({ outboxReconciled: 1, outboxAmbiguous: 1 })
  })
})
