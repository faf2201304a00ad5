/** The soak's check of a chat's order: a reply that reaches a chat after the reply to a later message of it is counted. */
import { describe, expect, it } from 'vitest'
import { BenchProvider } from '../../src/cli/services/bench-provider.js'

describe("BenchProvider: the soak's order check", () => {
  it('counts a reply that reached its chat after a later message was answered there; other chats and other texts do not count', async () => {
    const provider = new BenchProvider()
    for (const [chatId, text] of [
      ['a', 're:s0'],
      ['b', 're:s1'],
      ['a', 're:s2'],
      ['b', 're:s3'],
      ['a', 're:s6'],
      ['a', 're:s4'],
      ['b', 're:s5'],
      ['a', 'hello'],
    ] as const)
      await provider.send(chatId, { text })
    expect(provider.outOfOrder).toBe(1)
  })
})
