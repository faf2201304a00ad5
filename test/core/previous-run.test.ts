/**
 * A run of an instanceId that finds the heartbeat of an earlier run left behind (a graceful stop
 * removes it: that run died) says so in its own heartbeat, with what it took back of what the dead
 * run held, so `instances` and the dashboard can show the crash rather than a pid that changed.
 */
import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import { listInstances } from '../../src/operator/instances.js'
import { instancesView } from '../../src/cli/views/status.js'
import { MemoryDurability } from '../../src/core/index.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { InstanceRecord } from '../../src/core/durability/journal/records.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { crashable } from '../../src/testing/crashable.js'
import { CrashableProvider } from '../../src/testing/crashable-provider.js'
import { waitFor } from '../../test-utils/wait.js'
import { fast, useBots } from './helpers.js'

const bots = useBots()
const echo = (bot: Bot) => bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))

async function heartbeat(backend: DurabilityBackend, scope: string, instanceId: string): Promise<InstanceRecord | undefined> {
  const [found] = await backend.journal(scope).read('instances', [instanceId])
  return found?.record
}

describe('the run before this one', () => {
  it('is named in the heartbeat of the run that took over from it, with what it held; a graceful stop leaves none', async () => {
    const shared = new MemoryDurability()
    const store = new MemoryStore()
    const a = crashable(shared).crashBefore('inbox.complete')
    const first = await bots.start({
      store,
      provider: new CrashableProvider(a),
      durability: fast({ backend: a, instanceId: 'i1' }),
      setup: echo,
    })
    const scope = first.bot.scope
    await first.provider.receive({ id: 'm1', chatId: 'c1', text: 'hi' })
    await a.whenCrashed()
    bots.abandon(first)
    const left = (await heartbeat(shared, scope, 'i1'))!
    expect(left.previousRun).toBeUndefined()

    const second = await bots.start({ store, durability: fast({ backend: shared, instanceId: 'i1' }), setup: echo })
    await second.bot.idle()
    // Beaten right after the first sweep took the record back: no beat period to wait for.
    const beaten = await waitFor(async () => {
      const record = await heartbeat(shared, scope, 'i1')
      return record?.previousRun?.inboxTakenBack === 1 ? record : undefined
    })
    expect(beaten.previousRun).toEqual({
      host: hostname(),
      pid: process.pid,
      startedAt: left.startedAt,
      lastBeatAt: left.lastBeatAt,
      // The message it was running, and its reply: sent, the outcome not journaled before the crash.
      inboxTakenBack: 1,
      outboxTakenBack: 1,
    })
    expect(beaten.startedAt).toBeGreaterThanOrEqual(left.startedAt)
    // `botmesh instances` says it under its table.
    const now = await shared.now()
    const blocks = instancesView(now)(await listInstances(shared.journal(scope), now))
    expect(blocks).toContainEqual({
      text: expect.stringMatching(
        new RegExp(
          `^i1: the run before, pid ${process.pid} on .*, ended without a graceful stop \\(killed or crashed; last beat .*\\); pid ${process.pid} took back what it held: 1 inbound record\\(s\\), 1 send\\(s\\)$`,
        ),
      ),
      tone: 'red',
    })

    await second.bot.stop()
    expect(await heartbeat(shared, scope, 'i1')).toBeUndefined()
    const third = await bots.start({ store, durability: fast({ backend: shared, instanceId: 'i1' }), setup: echo })
    await third.bot.idle()
    const clean = await waitFor(() => heartbeat(shared, scope, 'i1'))
    expect(clean.previousRun).toBeUndefined()
  })
})
