/**
 * Back-pressure (LIMITS.inFlightMax): a process holding that much work in flight acknowledges an
 * admitted message only once there is room again, and its sweeper claims no more inbound records
 * meanwhile. Nothing is refused and nothing is lost: the message is journaled before its
 * acknowledgement waits, and it runs in its turn.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { BackPressure } from '../../src/core/durability/admission/back-pressure.js'
import { InFlight } from '../../src/core/durability/admission/in-flight.js'
import { LIMITS } from '../../src/core/durability/limits.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import { fast, recordId, useBots } from './helpers.js'

const bots = useBots()

/** A bot whose handler in chat c1 replies once `gate` opens, and at once in any other chat. */
function gatedBot(gate: Promise<void>) {
  return bots.start({
    durability: fast(),
    setup: (bot) =>
      bot.when(TEXT, async (ctx) => {
        if (ctx.chatId === 'c1') await gate
        await ctx.reply(`re:${ctx.message.text}`)
      }),
  })
}

/** Lets every callback queued by now run (timers of 0 ms included), without waiting on a clock. */
async function turns(count: number): Promise<void> {
  for (let n = 0; n < count; n++) await new Promise((resolve) => setImmediate(resolve))
}

describe('InFlight.room', () => {
  it('resolves at once below the max; at the max, once a piece of work ended', async () => {
    const inFlight = new InFlight(2)
    const first = deferred<void>()
    inFlight.add(first.promise)
    expect(inFlight.hasRoom).toBe(true)
    await inFlight.room()
    void inFlight.track(new Promise(() => {}))
    expect(inFlight.hasRoom).toBe(false)
    let roomy = false
    const waiting = inFlight.room().then(() => (roomy = true))
    await turns(3)
    expect(roomy).toBe(false)
    inFlight.forget(first.promise)
    await waiting
    expect(inFlight.hasRoom).toBe(true)
  })
})

describe('InFlight.below', () => {
  it('resolves once less than the count is in flight', async () => {
    const inFlight = new InFlight(4)
    const works = [deferred<void>(), deferred<void>(), deferred<void>()]
    for (const work of works) void inFlight.track(work.promise)
    let calm = false
    const waiting = inFlight.below(2).then(() => (calm = true))
    works[0]!.resolve()
    await turns(3)
    expect(calm).toBe(false)
    works[1]!.resolve()
    await waiting
    expect(inFlight.size).toBe(1)
  })
})

describe('BackPressure tells the operator once per episode', () => {
  it('hovering at the limit is one episode: one warning when intake starts to wait, one when the work in flight is down to under calm', async () => {
    const warnings: string[] = []
    const inFlight = new InFlight(4)
    const backPressure = new BackPressure(inFlight, (warning) => warnings.push(warning), 2)
    const works = Array.from({ length: 6 }, () => deferred<void>())
    for (const work of works.slice(0, 4)) void inFlight.track(work.promise)
    void backPressure.acknowledge(Promise.resolve())
    expect(warnings).toHaveLength(1)
    // The count falls to 3, intake goes on, and the count is back at the limit: the same episode.
    works[0]!.resolve()
    await turns(3)
    expect(backPressure.hasRoom).toBe(true)
    void inFlight.track(works[4]!.promise)
    void backPressure.acknowledge(Promise.resolve())
    expect(warnings).toHaveLength(1)
    for (const work of works.slice(1, 4)) work.resolve()
    await turns(3)
    expect(inFlight.size).toBe(1)
    expect(warnings).toHaveLength(2)
    expect(warnings[1]).toContain('down to under 2 (LIMITS.inFlightCalm)')
    // At the limit again: a new episode, told again.
    for (const work of [works[5]!, deferred<void>(), deferred<void>()]) void inFlight.track(work.promise)
    void backPressure.acknowledge(Promise.resolve())
    expect(warnings).toHaveLength(3)
  })
})

describe('a process at LIMITS.inFlightMax', () => {
  it('journals the next message at once but acknowledges it only once a held one finished; every message is answered once, in order', async () => {
    const gate = deferred<void>()
    onTestFinished(() => gate.resolve())
    const t = await gatedBot(gate.promise)
    // One chat: its handler waits at the gate, and every message after the first waits in its lane.
    for (let n = 0; n < LIMITS.inFlightMax; n++) await t.provider.receive({ id: `m${n}`, chatId: 'c1', text: `${n}` })
    let acknowledged = false
    const last = t.provider.receive({ id: 'over', chatId: 'c1', text: 'over' }).then(() => (acknowledged = true))
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('over')))?.state === 'processing', 60_000)
    await turns(5)
    expect(acknowledged).toBe(false)
    expect(t.warnings.filter((w) => w.includes('LIMITS.inFlightMax'))).toEqual([
      `durability: ${LIMITS.inFlightMax} messages and sends are in flight (LIMITS.inFlightMax); new messages are journaled but acknowledged to the channel only as earlier ones finish`,
    ])
    gate.resolve()
    await last
    await t.bot.idle()
    // Said once when intake started to wait, then once when it had room again.
    expect(t.warnings.filter((w) => w.includes('LIMITS.inFlight'))).toHaveLength(2)
    expect(t.warnings.filter((w) => w.includes('LIMITS.inFlight'))[1]).toBe(
      `durability: in-flight work is down to under ${LIMITS.inFlightCalm} (LIMITS.inFlightCalm); new messages are acknowledged at once again`,
    )
    const replies = t.provider.texts()
    expect(replies).toHaveLength(LIMITS.inFlightMax + 1)
    expect(replies.at(-1)).toBe('re:over')
    expect(replies.slice(0, 3)).toEqual(['re:0', 're:1', 're:2'])
    expect(new Set(replies).size).toBe(replies.length)
  })

  it('claims no replay from the journal until there is room: the record stays due, then runs', async () => {
    const gate = deferred<void>()
    onTestFinished(() => gate.resolve())
    const t = await gatedBot(gate.promise)
    await t.provider.receive({ id: 'd1', chatId: 'c2', text: 'x' })
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('d1', 'c2')))?.state === 'done')
    for (let n = 0; n < LIMITS.inFlightMax; n++) void t.provider.receive({ id: `m${n}`, chatId: 'c1', text: `${n}` })
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId(`m${LIMITS.inFlightMax - 1}`)))?.state === 'processing', 60_000)
    await t.bot.durability!.replayInbound(recordId('d1', 'c2'))
    // Three sweeps (each looks at both journals) after the replay made the record due.
    const sweptBefore = t.tap!.count('due')
    await waitFor(() => t.tap!.count('due') >= sweptBefore + 6, 60_000)
    expect(await t.bot.durability!.inbox.get(recordId('d1', 'c2'))).toMatchObject({ state: 'pending' })
    gate.resolve()
    await waitFor(async () => (await t.bot.durability!.inbox.get(recordId('d1', 'c2')))?.state === 'done', 60_000)
    await t.bot.idle()
    expect(await t.bot.durability!.inbox.get(recordId('d1', 'c2'))).toMatchObject({ state: 'done', attempts: 1 })
    // The replay's reply is answered from the outbox: sent once.
    expect(t.provider.texts().filter((text) => text === 're:x')).toEqual(['re:x'])
  })
})
