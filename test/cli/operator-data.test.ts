/**
 * The operator's data on SQLite through the built binary: dead letters grouped by error (and one
 * group retried or discarded in bulk), the retry queue with when each record is tried next, and
 * the per-minute failure rate and oldest pending age of `stats`.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openBackend } from '../../src/operator/gateway/open.js'
import type { JournalWrite } from '../../src/core/durability/journal/backend.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { errorGroupId, messageShape } from '../../src/operator/error-shape.js'
import { SEED_SCOPE, seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

type Group = {
  group: string
  kind: string
  code: string | null
  shape: string
  count: number
  firstSeenAt: number
  lastSeenAt: number
  sample: { id: string; message: string }
}
type Outcome = {
  matched: number
  attempted: number
  succeeded: number
  dryRun: boolean
  reason: string | null
  items: { id: string; ok: boolean }[]
}

/** The CLI seed plus a pile of rate-limited dead sends whose messages differ only in numbers and ids. */
async function seededWithPile(): Promise<(...args: string[]) => ReturnType<typeof botmesh>> {
  const url = `sqlite:${join(tempDir(), 'bot.db')}`
  await seedJournal(url)
  const opened = await openBackend(url, { access: 'write' })
  try {
    const now = await opened.backend.now()
    const writes: JournalWrite[] = []
    for (let i = 0; i < 4; i++) {
      const lastError = {
        message: `rate limited on chat 55119${i}, retry in ${30 + i}s (req 3f2a9c1e-0d4b-4c8e-9a7f-00000000000${i})`,
        code: 'RATE_LIMITED',
        at: now - (i + 1) * 60_000,
      }
      writes.push({
        kind: 'outbox',
        record: outboxRecord(`pile-${i}`, { state: 'dead', chatId: `chat-${i}`, attempts: 6, lastError, updatedAt: now - i * 1_000 }),
        expectVersion: 0,
      })
    }
    const failed = { message: 'store down', code: 'STORE_UNAVAILABLE', at: now - 10_000 }
    writes.push({
      kind: 'inbox',
      record: inboxRecord('in-backoff', {
        chatId: 'chat-z',
        state: 'failed',
        attempts: 1,
        nextAttemptAt: now + 90_000,
        lastError: failed,
        updatedAt: now - 10_000,
      }),
      expectVersion: 0,
    })
    const results = await opened.backend.journal(SEED_SCOPE).write('operator.import', writes)
    expect(results.every((result) => result.ok)).toBe(true)
  } finally {
    await opened.close()
  }
  return (...args) => botmesh([...args, '--backend', url])
}

describe('error shapes', () => {
  it('messages differing only in numbers, ids and quoted values share a shape and a group', () => {
    expect(messageShape('retry in 37s for 5511999 (id 3f2a9c1e-0d4b-4c8e-9a7f-0123456789ab)')).toBe('retry in <n>s for <n> (id <id>)')
    expect(messageShape(`template "welcome_v2" rejected`)).toBe('template "…" rejected')
    expect(messageShape('wamid.HBgM123456789ABCDEF failed')).toBe('wamid.<id> failed')
    const a = errorGroupId('outbox', { message: 'limit 10 hit', code: 'RATE_LIMITED', at: 1 })
    expect(errorGroupId('outbox', { message: 'limit 99 hit', code: 'RATE_LIMITED', at: 2 })).toBe(a)
    expect(errorGroupId('inbox', { message: 'limit 10 hit', code: 'RATE_LIMITED', at: 1 })).not.toBe(a)
    expect(errorGroupId('outbox', { message: 'limit 10 hit', code: 'OTHER', at: 1 })).not.toBe(a)
  })
})

describe.concurrent('dead letters grouped by error', () => {
  it('dlq list --group-by error counts each code and shape, with first/last seen and a sample', async () => {
    const cli = await seededWithPile()
    const result = await cli('dlq', 'list', '--group-by', 'error', '--json')
    expect(result.code).toBe(0)
    const { groups, scanLimited } = jsonOf<{ groups: Group[]; scanLimited: boolean }>(result)
    expect(scanLimited).toBe(false)
    // The pile (4) and the seed's own rate-limited send ("rate limited", another shape) stay apart.
    expect(groups[0]).toMatchObject({
      kind: 'outbox',
      code: 'RATE_LIMITED',
      count: 4,
      shape: 'rate limited on chat <n>, retry in <n>s (req <id>)',
    })
    expect(groups[0]!.lastSeenAt - groups[0]!.firstSeenAt).toBe(3 * 60_000)
    expect(Number.isInteger(groups[0]!.firstSeenAt)).toBe(true)
    expect(groups[0]!.sample.id).toMatch(/^pile-/)
    expect(groups.reduce((sum, group) => sum + group.count, 0)).toBe(9)
    const text = await cli('dlq', 'list', '--group-by', 'error')
    expect(text.stdout).toMatch(/RATE_LIMITED\s+rate limited on chat <n>/)
    expect(text.stdout).toContain('botmesh retry --all-dead --error-code RATE_LIMITED --dry-run')
    const wrong = await cli('dlq', 'list', '--group-by', 'chat')
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--group-by must be one of error')
  })

  it('retry --all-dead --error-code retries one code only, keeping the reason; --dry-run changes nothing', async () => {
    const cli = await seededWithPile()
    const dry = jsonOf<Outcome>(await cli('retry', '--all-dead', '--error-code', 'rate_limited', '--dry-run', '--json'))
    expect(dry).toMatchObject({ dryRun: true, matched: 5, attempted: 0 })
    const done = jsonOf<Outcome>(
      await cli('retry', '--all-dead', '--error-code', 'RATE_LIMITED', '--yes', '--reason', 'quota raised', '--json'),
    )
    expect(done).toMatchObject({ matched: 5, succeeded: 5, reason: 'quota raised' })
    const shown = jsonOf<{ record: { state: string; audit: { reason?: string }[] } }[]>(await cli('show', 'pile-2', '--json'))[0]!.record
    expect(shown.state).toBe('pending')
    expect(shown.audit.at(-1)?.reason).toBe('quota raised')
    const left = jsonOf<{ groups: Group[] }>(await cli('dlq', 'list', '--group-by', 'error', '--kind', 'outbox', '--json'))
    expect(left.groups.map((group) => group.code)).toEqual(['UNSUPPORTED_CONTENT'])
  })

  it('discard --all-dead --error-group forgets exactly one group; without --yes off a terminal it refuses', async () => {
    const cli = await seededWithPile()
    const { groups } = jsonOf<{ groups: Group[] }>(await cli('dlq', 'list', '--group-by', 'error', '--kind', 'outbox', '--json'))
    const pile = groups.find((group) => group.count === 4)!
    const refused = await cli('discard', '--all-dead', '--error-group', pile.group)
    expect(refused.code).toBe(2)
    const done = jsonOf<Outcome>(
      await cli('discard', '--all-dead', '--error-group', pile.group, '--yes', '--reason', 'stale campaign', '--json'),
    )
    expect(done).toMatchObject({ matched: 4, succeeded: 4, reason: 'stale campaign' })
    expect(done.items.map((item) => item.id).sort()).toEqual(['pile-0', 'pile-1', 'pile-2', 'pile-3'])
    expect((await cli('show', 'out-dead-2')).code).toBe(0)
    const named = await cli('discard', 'out-dead-2', '--error-code', 'RATE_LIMITED', '--yes')
    expect(named.code).toBe(2)
    expect(named.stderr).toContain('--error-code and --error-group filter the --all-… forms')
  })
})

describe.concurrent('the retry queue and the failure rate', () => {
  it('list shows what waits for its next attempt: failed records backing off, and pending ones, overdue while no bot runs', async () => {
    const cli = await seededWithPile()
    const text = await cli('list')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/in-backoff\s+failed\s+1\s+in (1m )?\d+s/)
    expect(text.stdout).toMatch(/out-failed\s+failed\s+2\s+overdue/)
    expect(text.stdout).toMatch(/out-pending\s+pending\s+1\s+in (1m |2m )?\d+s/)
    // A dead send re-queued by an operator waits for a bot: list shows it, due or overdue, never "nothing".
    expect((await cli('retry', 'pile-0', '--yes', '--reason', 'quota raised')).code).toBe(0)
    const after = await cli('list', '--kind', 'outbox')
    expect(after.stdout).toMatch(/pile-0\s+pending\s+0\s+(due now|overdue \d+)/)
    const json = jsonOf<{ records: { id: string; nextAttemptAt: number | null }[] }>(await cli('list', '--kind', 'outbox', '--json'))
    expect(json.records.map((record) => record.id).sort()).toEqual(['out-failed', 'out-pending', 'part:1', 'part:1#2', 'pile-0'])
  })

  it('stats gives throughput and failures per minute and the oldest pending age, in text and --json', async () => {
    const cli = await seededWithPile()
    const stats = jsonOf<{
      perMinute: { heartbeats: { throughputPerMinute: number; failuresPerMinute: number }; journal: { failed: number; dead: number } }
      inbox: { oldestPendingAgeMs: number }
    }>(await cli('stats', '--json'))
    // The seeded heartbeat: 380 journaled and 5 dead over its 99 s from start to last beat.
    expect(stats.perMinute.heartbeats.throughputPerMinute).toBeCloseTo((380 / 99) * 60, 0)
    expect(stats.perMinute.heartbeats.failuresPerMinute).toBeCloseTo((5 / 99) * 60, 0)
    // Updated within the last minute: in-failed, out-failed, part:1, in-backoff; pile-0..3 and nothing else dead.
    expect(stats.perMinute.journal).toMatchObject({ failed: 4, dead: 4 })
    expect(stats.inbox.oldestPendingAgeMs).toBeGreaterThanOrEqual(5_000)
    const text = await cli('stats')
    expect(text.stdout).toMatch(/per minute \(bots\)\s+throughput [\d.]+\/min, failures [\d.]+\/min/)
    expect(text.stdout).toMatch(/last minute \(journal\)\s+4 failed, 4 dead/)
    // Once, as a row of the table (per journal), not again under it.
    expect(text.stdout.match(/^oldest pending +\d+s +\S+$/gm)).toHaveLength(1)
    expect(text.stdout.match(/oldest pending/g)).toHaveLength(1)
  })
})
