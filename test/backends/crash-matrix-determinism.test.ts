/**
 * A crash case runs by its seed: the channel delivers the messages one at a time, the chats
 * interleaved by the seed, so the same seed gives the same result, byte for byte. Before, the chats
 * arrived all at once and real timers decided which sends were in flight at the crash (one case of
 * `botmesh crash-matrix --seed 42` reported 1, then 2 ambiguous sends).
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { deterministicCases, randomCases, runCrashCase, type CrashCase } from '../../src/core/testing/crash-matrix/index.js'
import { arrivalOrder } from '../../src/core/testing/crash-matrix/generation.js'
import { workloadMessages } from '../../src/core/testing/crash-matrix/workload.js'

const factory = { create: async () => new MemoryDurability() }
const RUNS = 3

/** The cases compared: those whose results varied between two runs most often, and a few seeded random ones. */
const CASES: CrashCase[] = [
  ...deterministicCases(['skip', 'resend']).filter((c) => /^(before inbox\.claim|after inbox\.heartbeat|.* outbox\.defer) \(/.test(c.name)),
  ...randomCases(42, 3, ['skip', 'resend']),
  ...randomCases(7, 2, ['resend']),
]

describe('the crash matrix runs by its seed', () => {
  it('the arrival order is drawn from the seed and keeps each chat in order', () => {
    const chats = workloadMessages()
    const order = arrivalOrder(chats, 42, 0)
    expect(order).toEqual(arrivalOrder(chats, 42, 0))
    expect(order.map((e) => e.id)).not.toEqual(arrivalOrder(chats, 43, 0).map((e) => e.id))
    expect(order).toHaveLength(chats.flat().length)
    for (const chat of chats) expect(order.filter((e) => e.chatId === chat[0]!.chatId)).toEqual(chat)
  })

  it(`the same seed gives the same result: ${CASES.length} cases run ${RUNS} times`, async () => {
    const differing: string[] = []
    for (const testCase of CASES) {
      const first = JSON.stringify(await runCrashCase(factory, testCase))
      for (let run = 1; run < RUNS; run++) {
        const again = JSON.stringify(await runCrashCase(factory, testCase))
        if (again !== first) differing.push(`${testCase.name}:\n  ${first}\n  ${again}`)
      }
    }
    expect(differing).toEqual([])
  }, 300_000)
})
