/**
 * The ambiguous window closed where the channel echoes us: WhatsApp Cloud (the outbox key in
 * `biz_opaque_callback_data`) and Twilio (in each send's `StatusCallback` URL). The process dies
 * inside the window, at either end of the provider call: after the channel accepted the send
 * (before `outbox.markSent`), or before the call was made (after `outbox.claim`). On restart the
 * send is ambiguous. Where the channel got it, its status naming the key settles the send as
 * `sent` with the channel's message id (`durability:reconciled`, `outboxReconciled`): delivered
 * exactly once under both `onAmbiguous` policies. Where it did not, no status comes, and after
 * `reconcileMs` the policy decides as the contract says: lost under 'skip', sent once under
 * 'resend'. Without the status (none comes, or `reconcileMs: 0`), a send the channel got stays
 * delivered but `unknown` under 'skip' and goes out twice under 'resend'. Each case runs on
 * MemoryDurability and on SQLite; the counts of what the channel received (delivered once, lost,
 * duplicated) are printed at the end, per policy:
 * `npx vitest run test/providers/reconcile.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import { MemoryDurability } from '../../src/core/index.js'
import type { IProvider } from '../../src/core/provider/provider.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable, type CrashableBackend } from '../../src/testing/crashable.js'
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
/** What the channel received, per policy, status and crash site; and how many sends were left `unknown`. */
const figures = new Map<string, { runs: number; delivered: number; lost: number; duplicated: number; unknown: number }>()
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  const rows = [...figures].sort(([a], [b]) => a.localeCompare(b))
  const lines = rows.map(([name, f]) => `| ${name} | ${f.runs} | ${f.delivered} | ${f.lost} | ${f.duplicated} | ${f.unknown} |`)
  console.info(
    [
      'reconciled crash cases: what the channel received (WhatsApp Cloud and Twilio, MemoryDurability and SQLite)',
      "| onAmbiguous | the channel's status | the crash | runs | delivered once | lost | duplicated | left unknown |",
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...lines,
    ].join('\n'),
  )
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
          if (graph.sent.length === 0) return [] // the channel got nothing: it has nothing to say
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

/** Where in the ambiguous window the process dies. */
const sites = [
  ['after the channel accepted it', (a: CrashableBackend) => a.crashBefore('outbox.markSent'), 1],
  ['before the provider call', (a: CrashableBackend) => a.crashAfter('outbox.claim'), 0],
] as const
/**
 * Whether the channel's status reaches the restarted bot: it comes within reconcileMs (30 s where
 * the channel got the send; where it did not, no status can come, and a 1 s wait keeps the test
 * short); it never comes (reconcileMs, 300 ms, passes without one); or it is not awaited
 * (reconcileMs 0: the contract's behaviour).
 */
const modes = ['comes in time', 'never comes', 'not awaited (reconcileMs 0)'] as const

describe.each(channels)('$name', (channel) => {
  async function crashThenRestart(
    policy: 'skip' | 'resend',
    make: (typeof backends)[number][1],
    reconcileMs: number,
    crash: (a: CrashableBackend) => CrashableBackend = sites[0][1],
  ) {
    const fake = await channel.start()
    const { backend, store } = make()
    const durability = { ...FAST, outbox: { ...FAST.outbox, onAmbiguous: policy, reconcileMs } }
    const a = crash(crashable(backend))
    const firstProvider = fake.provider()
    const first = await bots.start({ provider: firstProvider, store, durability: { ...durability, backend: a, instanceId: 'r-1' } })
    await first.enqueue(USER[channel.name], 'your code is 1234', { idempotencyKey: 'otp:1' })
    await a.whenCrashed()
    bots.abandon(first)
    await firstProvider.stop()
    // What the channel got before the crash (the restarted bot may resend at once).
    const before = fake.delivered().length
    const events = { reconciled: [] as unknown[], ambiguous: [] as unknown[] }
    const provider = fake.provider()
    const second = await bots.start({ provider, store, durability: { ...durability, backend, instanceId: 'r-1' } }, (b) => {
      b.on('durability:reconciled', (info) => events.reconciled.push(info))
      b.on('durability:ambiguous', (info) => events.ambiguous.push(info))
    })
    return { fake, second, provider, events, before }
  }

  function count(name: string, delivered: number, state: string | undefined) {
    const f = figures.get(name) ?? { runs: 0, delivered: 0, lost: 0, duplicated: 0, unknown: 0 }
    f.runs++
    if (delivered === 1) f.delivered++
    if (delivered === 0) f.lost++
    if (delivered > 1) f.duplicated++
    if (state === 'unknown') f.unknown++
    figures.set(name, f)
  }

  describe.each(backends)('%s', (_backend, make) => {
    describe.each(sites)('a crash %s', (site, crash, reached) => {
      it.each(modes.flatMap((mode) => (['skip', 'resend'] as const).map((policy) => [policy, mode] as const)))(
        "onAmbiguous '%s', the channel's status %s",
        async (policy, mode) => {
          const reconcileMs = mode === modes[2] ? 0 : mode === modes[1] ? 300 : reached ? 30_000 : 1_000
          const { fake, second, provider, events, before } = await crashThenRestart(policy, make, reconcileMs, crash)
          expect(before).toBe(reached)
          if (mode === modes[0]) expect(await fake.statuses(provider.webhookOrigin!)).toEqual(reached ? [200] : [])
          const settled = reached && mode === modes[0]
          // Settled by the status, or by the policy: 'skip' leaves it unknown, 'resend' sends it (again).
          const state = settled || policy === 'resend' ? 'sent' : 'unknown'
          const record = await waitFor(async () => {
            const r = await second.durability!.outbox.get('otp:1')
            return r?.state === state ? r : undefined
          }, 60_000)
          await second.idle()
          const delivered = fake.delivered()
          count(`'${policy}' | ${mode} | ${site}`, delivered.length, record.state)
          if (settled) {
            expect(record.providerMessageId).toBe(fake.ids()[0])
            expect(record.audit?.map((e) => e.action)).toContain('reconciled')
            expect(events).toEqual({ reconciled: [{ key: 'otp:1', chatId: USER[channel.name], messageId: fake.ids()[0] }], ambiguous: [] })
            expect(second.durability!.metrics()).toMatchObject({ outboxReconciled: 1, outboxAmbiguous: 0 })
          } else {
            expect(events).toEqual({ reconciled: [], ambiguous: [{ key: 'otp:1', chatId: USER[channel.name] }] })
          }
          // What the channel received: the first call's (if it was made) and a resend's.
          expect(delivered).toHaveLength(reached + (!settled && policy === 'resend' ? 1 : 0))
          expect(new Set(delivered)).toEqual(new Set(delivered.length ? ['your code is 1234'] : []))
        },
      )
    })
  })

  it("a status arriving after 'skip' marked the send unknown still settles it as sent", async () => {
    const { fake, second, provider } = await crashThenRestart('skip', backends[0]![1], 0)
    await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === 'unknown')
    expect(await fake.statuses(provider.webhookOrigin!)).toEqual([200])
    await waitFor(async () => (await second.durability!.outbox.get('otp:1'))?.state === 'sent')
    expect(second.durability!.metrics()).toMatchObject({ outboxReconciled: 1, outboxAmbiguous: 1 })
  })
})
