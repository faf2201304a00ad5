/**
 * The crash matrix's verdict matches each lost or duplicated send to an ambiguous key of the same
 * run: an unrelated loss (or duplicate) cannot hide behind another send's ambiguity.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { textOf } from '../../src/core/bot/hooks.js'
import type { OutboundContent } from '../../src/core/provider/provider.js'
import { expectedSends, runCrashCase, tally, violations, type ExpectedSend } from '../../src/testing/crash-matrix/index.js'
import { WORKLOAD_SCOPE } from '../../src/testing/crash-matrix/journal-check.js'

const A: ExpectedSend = { chatId: 'c1', text: 'a', key: 'm1:1' }
const B: ExpectedSend = { chatId: 'c2', text: 'b', key: 'm2:1' }
const sent = (...sends: ExpectedSend[]) => sends.map(({ chatId, text }) => ({ chatId, text }))

describe("crash matrix checker: a chat's order", () => {
  const A2: ExpectedSend = { chatId: 'c1', text: 'a2', key: 'm3:1' }
  const A3: ExpectedSend = { chatId: 'c1', text: 'a3', key: 'm4:1' }

  it("a send out before an earlier one of its chat fails, under either policy; other chats' sends do not count", () => {
    const result = tally([A, A2, B, A3], sent(A, B, A3, A2), new Map())
    expect(result.outOfOrder).toEqual(['c1: a2 after c1: a3'])
    for (const policy of ['skip', 'resend'] as const)
      expect(violations(result, policy)).toEqual(['out of its chat\'s order: "c1: a2 after c1: a3"'])
  })

  it('a resent copy and an ambiguous key are exempt; a dead (never sent) message leaves the rest in order', () => {
    // A2 went out, then again after A3 (its key was ambiguous, 'resend'); A was never sent at all.
    expect(tally([A, A2, A3], sent(A2, A3, A2), new Map([['m3:1', 1]])).outOfOrder).toEqual([])
    expect(tally([A, A2, A3], sent(A3, A2), new Map([['m3:1', 1]])).outOfOrder).toEqual([])
  })
})

describe('crash matrix checker: ambiguity excuses only its own send', () => {
  it("under 'skip', a lost send whose key was never ambiguous fails even when another key was", () => {
    // A's key was ambiguous (and A went out after all); B was lost with no ambiguity of its own.
    const result = tally([A, B], sent(A), new Map([['m1:1', 1]]))
    expect(result).toMatchObject({ lost: 1, ambiguous: 1, details: { lost: ['c2: b'], ambiguous: ['m1:1'] } })
    expect(violations(result, 'skip')).toEqual(['"c2: b" (key m2:1, ambiguous 0 time(s)) lost, and its key was never ambiguous'])
  })

  it("under 'skip', a lost send whose own key was ambiguous is what the policy allows", () => {
    expect(violations(tally([A, B], sent(A), new Map([['m2:1', 1]])), 'skip')).toEqual([])
  })

  it("under 'resend', a duplicate whose key was never ambiguous fails even when another key was", () => {
    const result = tally([A, B], sent(A, B, B), new Map([['m1:1', 1]]))
    expect(result).toMatchObject({ duplicated: 1, details: { duplicated: ['c2: b'] } })
    expect(violations(result, 'resend')).toEqual([
      '"c2: b" (key m2:1, ambiguous 0 time(s)) duplicated 1 time(s), more than its key was ambiguous',
    ])
  })

  it("under 'resend', a send may go out again once per time its key was found ambiguous", () => {
    expect(violations(tally([A, B], sent(A, B, B), new Map([['m2:1', 1]])), 'resend')).toEqual([])
    expect(violations(tally([A, B], sent(A, B, B, B), new Map([['m2:1', 1]])), 'resend')).toHaveLength(1)
    expect(violations(tally([A, B], sent(A, B, B, B), new Map([['m2:1', 2]])), 'resend')).toEqual([])
  })

  it('the workload names the key each expected send goes out under (a run without a crash journals exactly those)', async () => {
    const backend = new MemoryDurability()
    const result = await runCrashCase(
      { create: async () => backend },
      { name: 'no crash', policy: 'skip', crashes: [], seed: 1, target: { point: 'inbox.admit', when: 'before' } },
    )
    expect(result.problems).toEqual([])
    await backend.start()
    try {
      const journaled = await backend.journal(WORKLOAD_SCOPE).list('outbox', { state: 'sent', limit: 100 })
      const actual = journaled.map(({ record }) => ({
        chatId: record.chatId,
        text: textOf(record.payload as OutboundContent),
        key: record.key,
      }))
      const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1)
      expect(actual.sort(byKey)).toEqual(expectedSends().sort(byKey))
    } finally {
      await backend.stop()
    }
  }, 60_000)
})
