/**
 * The one limit on journal keys (LIMITS.idBytesMax bytes of UTF-8, no NUL): keys within it are kept
 * as they are, longer ones become a stable digest form, and the namespace and instanceId that make
 * up the rest of a key are bounded by the bot's config.
 */
import { describe, expect, it } from 'vitest'
import { Bot } from '../../src/core/bot/bot.js'
import { journalKey } from '../../src/core/durability/journal/journal-key.js'
import { LIMITS } from '../../src/core/durability/limits.js'
import { ConfigError } from '../../src/core/errors/errors.js'
import { MockProvider } from '../../src/testing/mock-provider.js'

describe('journalKey', () => {
  it('keeps a key of up to the limit, in bytes, as it is', () => {
    const ascii = 'k'.repeat(LIMITS.idBytesMax)
    expect(journalKey(ascii)).toBe(ascii)
    // 'é' is two bytes: half as many characters fit.
    const accented = 'é'.repeat(LIMITS.idBytesMax / 2)
    expect(journalKey(accented)).toBe(accented)
  })

  it('journals a longer key, or one with a NUL, under a digest that is the same on every call', () => {
    for (const key of [
      'k'.repeat(LIMITS.idBytesMax + 1),
      'é'.repeat(LIMITS.idBytesMax / 2 + 1),
      'a\u0000b',
      `${'😀'.repeat(40)}${'x'.repeat(600)}`,
    ]) {
      const journaled = journalKey(key)
      expect(journaled).toMatch(/~sha256:[0-9a-f]{64}$/)
      expect(journaled).toBe(journalKey(key))
      expect(Buffer.byteLength(journaled)).toBeLessThanOrEqual(LIMITS.idBytesMax)
      expect(journaled).not.toMatch(/[\u0000-\u001f]/)
      expect(journaled).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
    }
    expect(journalKey('k'.repeat(600))).not.toBe(journalKey(`${'k'.repeat(599)}j`))
  })
})

describe('the rest of a journal key in the config', () => {
  const bot = (options: Record<string, unknown>) => () => new Bot({ provider: new MockProvider(), durability: {}, ...options })

  it('refuses a namespace part over 64 characters or with a control character', () => {
    expect(bot({ botId: 'b'.repeat(64) })).not.toThrow()
    expect(bot({ botId: 'b'.repeat(65) })).toThrow(ConfigError)
    expect(bot({ tenantId: 't\u0000' })).toThrow(/control characters/)
  })

  it('refuses an instanceId over the key limit or with a control character', () => {
    const withInstance = (instanceId: string) => () => new Bot({ provider: new MockProvider(), durability: { instanceId } })
    expect(withInstance('i'.repeat(LIMITS.idBytesMax))).not.toThrow()
    expect(withInstance('i'.repeat(LIMITS.idBytesMax + 1))).toThrow(/at most 512 bytes/)
    expect(withInstance('pod\u00001')).toThrow(ConfigError)
  })
})
