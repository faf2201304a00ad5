/**
 * The memory journal hands out its records frozen (frozen.ts): a reader of the state, or a handler
 * whose replayed message was rebuilt from a record, that changes one fails instead of changing the
 * journal. The memory steps write their own records unfrozen (freezing them in place was a fifth of
 * a message's cost), so what reaches a reader is frozen on its way out.
 */
import { describe, expect, it } from 'vitest'
import { MemoryKv } from '../../../src/core/durability/memory/memory-kv.js'
import type { InboxRecord } from '../../../src/core/durability/journal/records.js'
import { MemoryDurability } from '../../../src/core/durability/memory/memory-durability.js'
import type { JournalSteps, StepClaim } from '../../../src/core/durability/steps/journal-steps.js'
import { INTERACTION } from '../../../src/core/bot/matchers.js'
import { crashable } from '../../../src/testing/crashable.js'
import { onEngine } from '../../../test-utils/engine.js'
import { admitted } from '../../../test-utils/step-records.js'
import { deferred } from '../../../test-utils/wait.js'
import { fast, recordId, useBots } from '../helpers.js'

const bots = useBots()
onEngine('steps')

const claim = (now: number, incarnation = 'run-1'): StepClaim => ({ owner: 'bot', incarnation, leaseMs: 1_000, now })

function admit(steps: JournalSteps, record: InboxRecord): void {
  steps.admit(record, claim(1_000), (outcome) => expect(outcome).toMatchObject({ type: 'run' }))
}

function isFrozenThrough(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  return Object.isFrozen(value) && Object.values(value).every(isFrozenThrough)
}

describe("the memory steps' records, as readers get them", () => {
  it('are frozen through for a reader of the state (get, list, due), with a nested event', async () => {
    const kv = new MemoryKv()
    const steps = kv.steps('scope')
    const record = { ...admitted('c1', 1, claim(1_000)), event: { id: '1', chatId: 'c1', text: 'm1', raw: { nested: [1, 2] } } }
    admit(steps, record)
    const scoped = kv.scope('scope')
    const [entry] = await scoped.get('inbox', [record.id])
    expect(entry).toBeDefined()
    expect(isFrozenThrough(entry)).toBe(true)
    expect(() => {
      ;(entry!.value as { event: { raw: { nested: number[] } } }).event.raw.nested.push(3)
    }).toThrow(TypeError)

    const [listed] = await scoped.list('inbox', { state: 'processing', limit: 10 })
    expect(listed).toBe(entry)
  })

  it("reach a replay's handler frozen: changing the message fails instead of changing the journal", async () => {
    const memory = new MemoryDurability()
    const dying = crashable(memory)
    const inHandler = deferred()
    const earlier = await bots.start({
      durability: fast({ backend: dying, instanceId: 'bot' }),
      untapped: true,
      setup: (bot) => bot.when(INTERACTION, () => (inHandler.resolve(), new Promise(() => {}))),
    })
    await earlier.provider.receive({ id: 'm1', chatId: 'c1', interaction: { id: 'yes', data: { choice: { n: 1 } } } })
    await inHandler.promise
    dying.crashNow()
    bots.abandon(earlier)

    const changed = deferred<unknown>()
    const t = await bots.start({
      durability: fast({ backend: memory, instanceId: 'bot' }),
      untapped: true,
      setup: (bot) =>
        bot.when(INTERACTION, (ctx) => {
          try {
            ;(ctx.message.interaction!.data as { choice: { n: number } }).choice.n = 2
            changed.resolve(undefined)
          } catch (error) {
            changed.resolve(error)
          }
        }),
    })
    expect(await changed.promise).toBeInstanceOf(TypeError)
    const [entry] = await memory.journal(t.bot.durability!.scope).read('inbox', [recordId('m1', 'c1')])
    expect(
      (entry!.record as unknown as { event: { interaction: { data: { choice: { n: number } } } } }).event.interaction.data.choice.n,
    ).toBe(1)
  })

  it('freezes what a caller of MemoryKv.write hands it, in place (the caller holds that object)', async () => {
    const kv = new MemoryKv()
    const value = { state: 'pending', nested: { list: [1] } }
    await kv.write([{ op: 'put', collection: 'c', key: 'k', expectVersion: 0, value, state: 'pending', stateTime: 1, due: null }])
    expect(isFrozenThrough(value)).toBe(true)
  })
})
