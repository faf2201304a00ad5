/**
 * `providerSession: 'leader'` between replicas in one process (real processes and a SIGKILLed leader:
 * replicas-processes.test.ts): one replica is elected and starts its transport, the standby never
 * calls its own; its sends are journaled, answered as deferred, and delivered by the leader; a
 * graceful stop hands the session over at once. And with only the provider's own `session: 'leader'`,
 * a standby's sweeper records the refusal once instead of pushing the send's fencing token up on every try.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { SendDeferredError } from '../../src/core/errors/errors.js'
import { ProviderNotLeaderError } from '../../src/core/provider/provider-errors.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, useBots } from '../core/helpers.js'

const bots = useBots()

/** Whether the bot started this provider (MockProvider.receive refuses until it did). */
async function transportStarted(provider: MockProvider): Promise<boolean> {
  return provider.receive({ id: `probe-${Math.random()}`, chatId: 'probe', text: 'probe' }).then(
    () => true,
    () => false,
  )
}

describe("providerSession: 'leader'", () => {
  it('starts one transport; a standby journals its sends for the leader and never calls its own; a stop hands the session over', async () => {
    const shared = new MemoryDurability()
    const options = (instanceId: string) =>
      fast({ backend: shared, instanceId, providerSession: 'leader', coordination: { sessionLeaseMs: 2_000 } })
    const leader = await bots.start({ botId: 'session', durability: options('a') })
    const standby = await bots.start({ botId: 'session', durability: options('b') })
    expect(await transportStarted(leader.provider)).toBe(true)
    expect(await transportStarted(standby.provider)).toBe(false)

    const { key } = await standby.bot.enqueue('c1', 'queued on the standby')
    const refused = await standby.bot.send('c1', 'sent on the standby').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(SendDeferredError)
    expect((refused as SendDeferredError).cause).toBeInstanceOf(ProviderNotLeaderError)
    await waitFor(() => leader.provider.texts('c1').length === 2, { timeoutMs: 10_000, message: 'the leader delivered both' })
    expect(leader.provider.texts('c1').sort()).toEqual(['queued on the standby', 'sent on the standby'])
    expect(standby.provider.sent).toEqual([])
    const [record] = [await standby.bot.durability!.outbox.get(key)]
    expect(record).toMatchObject({ state: 'sent' })
    // Every claim was the leader's: the standby never took a token.
    expect(standby.tap!.writes.filter((w) => w.name === 'outbox.claim')).toEqual([])
    expect(leader.tap!.writes.filter((w) => w.name === 'outbox.claim').length).toBeGreaterThanOrEqual(1)

    await leader.bot.stop()
    bots.abandon(leader)
    await waitFor(() => transportStarted(standby.provider), {
      timeoutMs: 10_000,
      message: 'the standby took the session and started its transport',
    })
    await standby.bot.send('c2', 'now the leader')
    expect(standby.provider.texts('c2')).toEqual(['now the leader'])
  })

  it("with only the provider's session 'leader', a standby's sweeper records the refusal once: no retry spent, no token taken", async () => {
    const provider = new MockProvider({ session: 'leader' })
    provider.leader = false
    const t = await bots.start({ provider, durability: fast() })
    const { key } = await t.bot.enqueue('c1', 'for the leader')
    // Many sweeps (pollMs 10) pass meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const found = await t.bot.durability!.outbox.get(key)
    expect(found).toMatchObject({ state: 'failed', fencingToken: 0, attempts: 0, lastError: { code: 'PROVIDER_NOT_LEADER' } })
    expect(provider.sent).toEqual([])
    expect(t.tap!.writes.filter((w) => w.name === 'outbox.defer' || w.name === 'outbox.claim').map((w) => w.name)).toEqual(['outbox.defer'])
    provider.leader = true
    await waitFor(() => provider.texts('c1').length === 1, { timeoutMs: 10_000, message: 'delivered once this replica leads' })
  })
})
