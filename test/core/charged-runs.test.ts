/**
 * The rule of charged runs, which the bot's inbox and the event journals share: a claim charges a
 * run and moves the fencing token on, with the lease under the new token; a record is run no more
 * once its runs are charged. The inbox's claim and an event journal's claim go through it alike.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { claimRun, runsSpent, unfinishedRunsError } from '../../src/core/durability/leases/charged-runs.js'
import { FileEventJournal } from '../../src/events/index.js'

describe('claimRun', () => {
  it('charges one run, takes the next token and leases under it, keeping the rest and its key order', () => {
    const record = { id: 'a', state: 'failed', attempts: 2, lease: null, fencingToken: 5, note: 'kept' }
    const tokens: number[] = []
    const claimed = claimRun(record, (token) => {
      tokens.push(token)
      return { owner: 'me', token }
    })
    expect(tokens).toEqual([6])
    expect(claimed).toEqual({ id: 'a', state: 'processing', attempts: 3, lease: { owner: 'me', token: 6 }, fencingToken: 6, note: 'kept' })
    // The journaled JSON keeps the record's field order.
    expect(Object.keys(claimed)).toEqual(Object.keys(record))
    expect(record).toEqual({ id: 'a', state: 'failed', attempts: 2, lease: null, fencingToken: 5, note: 'kept' })
  })
})

describe('runsSpent and unfinishedRunsError', () => {
  it('stops a record at maxAttempts charged runs, not before', () => {
    expect(runsSpent(2, 3)).toBe(false)
    expect(runsSpent(3, 3)).toBe(true)
    expect(runsSpent(4, 3)).toBe(true)
    expect(unfinishedRunsError(3, 'worker', 7)).toEqual({ message: '3 runs did not complete (the worker crashed or froze)', at: 7 })
  })
})

describe('an event journal claims by the rule', () => {
  let dir: string | undefined
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
    dir = undefined
  })

  it('charges a run and moves the token per claim, and dead-letters a record whose runs never completed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'botmesh-charged-runs-'))
    let now = 1_000
    const journal = await FileEventJournal.open(join(dir, 'events.json'), { now: () => now })
    try {
      await journal.append([{ id: 'e1', eventType: 'work' }])
      const first = await journal.claim({ owner: 'w', leaseMs: 5, maxAttempts: 2 })
      expect(first.map((r) => [r.attempts, r.fencingToken, r.lease?.token, r.state])).toEqual([[1, 1, 1, 'processing']])
      now += 10 // past the lease: the run never completed
      const second = await journal.claim({ owner: 'w', leaseMs: 5, maxAttempts: 2 })
      expect(second.map((r) => [r.attempts, r.fencingToken, r.lease?.token])).toEqual([[2, 2, 2]])
      now += 10 // past the lease: the run never completed
      expect(await journal.claim({ owner: 'w', leaseMs: 5, maxAttempts: 2 })).toEqual([])
      const [dead] = await journal.list({ state: 'dead' })
      expect(dead).toMatchObject({ id: 'e1', attempts: 2, lastError: unfinishedRunsError(2, 'worker', now) })
    } finally {
      await journal.close()
    }
  })
})
