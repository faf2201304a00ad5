import { describe, expect, it } from 'vitest'
import { decodeEnvelope, encodeEnvelope, stateMember, timeHex } from '../../src/backends/redis/envelope.js'

describe('the Redis envelope and state index members', () => {
  it('orders timeHex bytewise as the numbers it encodes, negatives, fractions and -0 included', () => {
    const times = [
      0,
      -0,
      1,
      -1,
      0.5,
      -0.5,
      1_799_999_999_999,
      1_800_000_000_000,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      1e300,
      -1e300,
      5e-324,
      -5e-324,
    ]
    for (let n = 0; n < 500; n++) times.push((Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 20))
    const byNumber = [...new Set(times.map((t) => (t === 0 ? 0 : t)))].sort((a, b) => a - b)
    const byBytes = [...byNumber].sort((a, b) => (timeHex(a) < timeHex(b) ? -1 : timeHex(a) > timeHex(b) ? 1 : 0))
    expect(byBytes).toEqual(byNumber)
    expect(timeHex(-0)).toBe(timeHex(0))
    expect(() => timeHex(Number.NaN)).toThrow(RangeError)
    expect(() => timeHex(Infinity)).toThrow(RangeError)
  })

  it('orders members by (stateTime, key), a key that extends another after it', () => {
    const members = [stateMember(2, 'b'), stateMember(2, 'a'), stateMember(1, 'z'), stateMember(2, ''), stateMember(2, 'ab')]
    expect([...members].sort()).toEqual([
      stateMember(1, 'z'),
      stateMember(2, ''),
      stateMember(2, 'a'),
      stateMember(2, 'ab'),
      stateMember(2, 'b'),
    ])
  })

  it('round-trips an entry, the value after the first newline only', () => {
    const put = {
      op: 'put' as const,
      collection: 'inbox',
      key: 'k\n1',
      expectVersion: 4,
      value: { text: 'line\nbreak', n: null },
      state: 'st\nate',
      stateTime: 12.5,
      due: null,
    }
    expect(decodeEnvelope('k\n1', encodeEnvelope(put, 5))).toEqual({
      key: 'k\n1',
      version: 5,
      state: 'st\nate',
      stateTime: 12.5,
      due: null,
      value: { text: 'line\nbreak', n: null },
    })
  })
})
