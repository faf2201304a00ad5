/**
 * A message's completion is off its chat's path (message-run.ts): once its handler returned and its
 * sends are journaled, the chat's next message runs while the completion is in flight. The chat's
 * completions are written in the order its messages ran, so the messages recorded done are always
 * the chat's earliest; a completion the journal keeps refusing runs its message again, and the
 * chat's later completions wait until it settled.
 */
import { describe, expect, it } from 'vitest'
import { describeLabel } from '../../src/core/durability/journal/crash-points.js'
import { JournalUnavailableError } from '../../src/core/errors/errors.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { deferred, waitFor } from '../../test-utils/wait.js'
import type { Bot } from '../../src/core/bot/bot.js'
import type { InboxRecord } from '../../src/core/durability/journal/records.js'
import { fast, recordId, useBots, type TapCall, type TestBot } from './helpers.js'

const bots = useBots()

const echo = (bot: Bot) =>
  bot.when(TEXT, async (ctx) => {
    await ctx.reply(`echo: ${ctx.message.text}`)
  })

/** The inbox record ids an `inbox.complete` call completes (alone or with the sent marks riding in it). */
function completed(call: TapCall): string[] {
  if (call.op !== 'write' || !describeLabel(call.name).includes('inbox.complete')) return []
  return call.writes.flatMap((write) => (write.kind === 'inbox' && 'record' in write ? [(write.record as InboxRecord).id] : []))
}

function texts(t: TestBot): string[] {
  return t.provider.texts()
}

describe('completion off the chat’s path', () => {
  it('the chat’s next message runs while the previous one’s completion is in flight; completions land in order', async () => {
    const t = await bots.start({ durability: fast(), setup: echo })
    const gate = deferred()
    const calls: string[] = []
    t.tap!.intercept(async (call) => {
      const ids = completed(call)
      calls.push(...ids)
      if (ids.includes(recordId('m1'))) await gate.promise
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    // m2's handler ran and its reply went out while m1's completion is held at the gate.
    await waitFor(() => texts(t).includes('echo: second'), { message: 'the second message ran' })
    expect(texts(t)).toEqual(['echo: first', 'echo: second'])
    // m2's completion waits behind m1's: it is not even tried while m1's is in flight.
    expect(calls).toEqual([recordId('m1')])
    expect((await t.bot.durability!.inbox.get(recordId('m1')))?.state).toBe('processing')
    gate.resolve()
    await t.bot.idle()
    expect(calls).toEqual([recordId('m1'), recordId('m2')])
    // m2's sent mark waited for its completion behind m1's and rode in it: no mark written alone.
    expect(t.tap!.writes.map((w) => describeLabel(w.name)).filter((label) => label.includes('inbox.complete'))).toEqual([
      'outbox.markSent+inbox.complete',
      'outbox.markSent+inbox.complete',
    ])
    expect(await t.bot.durability!.outbox.get(`${recordId('m2')}:1`)).toMatchObject({ state: 'sent' })
    expect((await t.bot.durability!.inbox.get(recordId('m1')))?.state).toBe('done')
    expect((await t.bot.durability!.inbox.get(recordId('m2')))?.state).toBe('done')
  })

  it('a completion refused for good runs its message again first; the chat’s later completion waits for it', async () => {
    // A settling write keeps trying for half the lease: a short lease keeps that wait short.
    const t = await bots.start({ durability: fast({ inbox: { leaseMs: 400 } }), setup: echo })
    let refusing = true
    const landed: string[] = []
    t.tap!.intercept((call) => {
      const ids = completed(call)
      if (ids.includes(recordId('m1')) && refusing) throw new JournalUnavailableError('inbox.complete refused (test)')
      // m1 charged another run: the journal takes its completion from now on.
      if (call.op === 'write' && describeLabel(call.name) === 'inbox.claim') refusing = false
      landed.push(...ids)
    })
    await t.provider.receive({ id: 'm1', chatId: 'c1', text: 'first' })
    await t.provider.receive({ id: 'm2', chatId: 'c1', text: 'second' })
    await t.bot.idle()
    // m1 ran twice (its reply answered from the outbox the second time), and was done before m2.
    expect(landed).toEqual([recordId('m1'), recordId('m2')])
    expect(await t.bot.durability!.inbox.get(recordId('m1'))).toMatchObject({ state: 'done', attempts: 2 })
    expect(await t.bot.durability!.inbox.get(recordId('m2'))).toMatchObject({ state: 'done', attempts: 1 })
    expect(texts(t)).toEqual(['echo: first', 'echo: second'])
    expect(t.bot.durability!.metrics().outboxDeduped).toBe(1)
  })

  it('a chat’s messages arriving together all run once and are all done, in order', async () => {
    const t = await bots.start({ durability: fast(), setup: echo })
    const landed: string[] = []
    t.tap!.intercept((call) => void landed.push(...completed(call)))
    const ids = Array.from({ length: 20 }, (_, n) => `m${n + 1}`)
    await Promise.all(ids.map((id) => t.provider.receive({ id, chatId: 'c1', text: id })))
    await t.bot.idle()
    expect(texts(t)).toEqual(ids.map((id) => `echo: ${id}`))
    expect(landed).toEqual(ids.map((id) => recordId(id)))
  })
})
