/**
 * A crash case runs by its seed on memory, SQLite and files: the channel delivers the messages one
 * at a time, the chats interleaved by the seed, and the case runs on simulated time (timers fire
 * by their due times, one at a time, once the work has nothing else to do), so the same seed gives
 * the same result, byte for byte, however loaded the machine. On real time, which timer fired
 * first decided what a crash caught: `botmesh crash-matrix --backend memory --policy skip --seed 42`
 * reported 'before outbox.heartbeat (skip)' with the slow send delivered, then lost, and the
 * heartbeat crash points were reached in one run and not in the next.
 */
import { describe, expect, it } from 'vitest'
import { onEngine } from '../../test-utils/engine.js'
import { parseBackendUrl } from '../../src/operator/gateway/backend-url.js'
import { throwawayFactory } from '../../src/operator/gateway/throwaway.js'
import { deterministicCases, randomCase, runCrashCase, type CrashCase } from '../../src/testing/crash-matrix/index.js'
import { arrivalOrder } from '../../src/testing/crash-matrix/generation.js'
import { workloadMessages } from '../../src/testing/crash-matrix/workload.js'

// These tests arm the message engine's writes, which the steps engine never makes: they run on the
// message engine whatever BOTMESH_ENGINE says (a wrapped backend now runs the engine it would run unwrapped).
onEngine('message')

/**
 * The cases compared: those whose crash a timer decides (a lease heartbeat during the slow handler
 * and the slow send, a deferred part's backoff), and random ones whose results varied between two
 * runs on real time.
 */
const CASES: CrashCase[] = [
  ...deterministicCases(['skip', 'resend'], 42).filter((c) =>
    /^(before|after) (inbox|outbox)\.heartbeat \(skip\)|before outbox\.defer \(resend\)/.test(c.name),
  ),
  randomCase(133054345, ['skip', 'resend'])!,
  randomCase(2097893167, ['skip', 'resend'])!,
]

/** Runs every case twice, the second run right after the first; returns the cases whose JSON differed. */
async function differingRuns(backend: string, cases: readonly CrashCase[]): Promise<string[]> {
  const factory = throwawayFactory(parseBackendUrl(backend))
  const differing: string[] = []
  for (const testCase of cases) {
    const [first, again] = [
      await runCrashCase(factory, testCase, { simulatedTime: true }),
      await runCrashCase(factory, testCase, { simulatedTime: true }),
    ]
    expect(first.problems, `${backend}: ${testCase.name}`).toEqual([])
    if (JSON.stringify(again) !== JSON.stringify(first))
      differing.push(`${testCase.name}:\n  ${JSON.stringify(first)}\n  ${JSON.stringify(again)}`)
  }
  return differing
}

describe('the crash matrix runs by its seed', () => {
  it('the arrival order is drawn from the seed and keeps each chat in order', () => {
    const chats = workloadMessages()
    const order = arrivalOrder(chats, 42, 0)
    expect(order).toEqual(arrivalOrder(chats, 42, 0))
    expect(order.map((e) => e.id)).not.toEqual(arrivalOrder(chats, 43, 0).map((e) => e.id))
    expect(order).toHaveLength(chats.flat().length)
    for (const chat of chats) expect(order.filter((e) => e.chatId === chat[0]!.chatId)).toEqual(chat)
  })

  it.each(['memory', 'sqlite', 'file'])(
    `%s: the same seed gives the same result, byte for byte (${CASES.length} cases, twice)`,
    async (backend) => {
      expect(CASES).toHaveLength(7)
      expect(await differingRuns(backend, CASES)).toEqual([])
    },
    300_000,
  )

  it('the heartbeat crash points are reached on simulated time: a slow handler and a slow send outlast a third of their lease', async () => {
    const factory = throwawayFactory(parseBackendUrl('memory'))
    const [inbox, outbox] = ['before inbox.heartbeat (skip)', 'before outbox.heartbeat (skip)'].map((name) =>
      CASES.find((c) => c.name === name)!,
    )
    for (const testCase of [inbox!, outbox!]) {
      const result = await runCrashCase(factory, testCase, { simulatedTime: true })
      expect([result.name, result.crashed, result.ok]).toEqual([testCase.name, true, true])
    }
  }, 120_000)
})
