/**
 * The CLI states only what it knows: an instance whose beat is late is silent, not live, and its
 * uptime runs from its start; `stats` with no instance reporting has no rate to give. Times are
 * anchored on the backend's clock and chosen far from every threshold, so a slow machine cannot
 * change the answer.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openBackend } from '../../src/operator/gateway/open.js'
import type { InstanceRecord } from '../../src/core/durability/journal/records.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const SCOPE = 'acme/prod/support/default'
const EMPTY_SCOPE = 'acme/prod/quiet/default'
const HOUR_MS = 3_600_000
const tempDir = useTempDirs()
let url: string

beforeAll(async () => {
  url = `sqlite:${join(tempDir(), 'facts.db')}`
  const opened = await openBackend(url, { access: 'create' })
  try {
    const now = await opened.backend.now()
    const instance = (instanceId: string, fields: Partial<InstanceRecord>): InstanceRecord => ({
      instanceId,
      botId: 'support',
      host: 'host-1',
      pid: 4242,
      startedAt: now,
      lastBeatAt: now,
      lastSweepAt: null,
      expiresAt: now + 3_600_000,
      metrics: {},
      ...fields,
    })
    await opened.backend.journal(SCOPE).write('operator.import', [
      // Killed with kill -9 right after its first beat, five minutes ago; its record lives on for an hour.
      { kind: 'instances', record: instance('killed', { startedAt: now - 300_000, lastBeatAt: now - 300_000 }), expectVersion: 0 },
      // Started an hour ago and beating: its uptime is an hour, whatever its last beat.
      {
        kind: 'instances',
        record: instance('beating', {
          startedAt: now - 3_600_000,
          lastBeatAt: now - 1_000,
          limits: { inboxMaxAttempts: 3, outboxRetries: 1, retentionMs: HOUR_MS },
        }),
        expectVersion: 0,
      },
      {
        kind: 'inbox',
        record: inboxRecord('in-failed', { state: 'failed', attempts: 1, nextAttemptAt: now + 3_600_000, updatedAt: now }),
        expectVersion: 0,
      },
      // Past the beating bot's retention of an hour: two done, one sent. Ten minutes old: kept.
      { kind: 'inbox', record: inboxRecord('in-done-old-1', { state: 'done', updatedAt: now - 2 * HOUR_MS }), expectVersion: 0 },
      { kind: 'inbox', record: inboxRecord('in-done-old-2', { state: 'done', updatedAt: now - 3 * HOUR_MS }), expectVersion: 0 },
      { kind: 'inbox', record: inboxRecord('in-done-recent', { state: 'done', updatedAt: now - 600_000 }), expectVersion: 0 },
      { kind: 'outbox', record: outboxRecord('out-sent-old', { state: 'sent', updatedAt: now - 2 * HOUR_MS }), expectVersion: 0 },
    ])
    await opened.backend.journal(EMPTY_SCOPE).write('operator.import', [
      { kind: 'inbox', record: inboxRecord('in-1', { updatedAt: now }), expectVersion: 0 },
      { kind: 'inbox', record: inboxRecord('in-dead', { state: 'dead', attempts: 5, updatedAt: now }), expectVersion: 0 },
      // Past the default retention (7 days) that applies with no live instance; a dead one is never purged.
      { kind: 'inbox', record: inboxRecord('in-done-8d', { state: 'done', updatedAt: now - 8 * 24 * HOUR_MS }), expectVersion: 0 },
      { kind: 'inbox', record: inboxRecord('in-dead-8d', { state: 'dead', updatedAt: now - 8 * 24 * HOUR_MS }), expectVersion: 0 },
    ])
  } finally {
    await opened.close()
  }
})

describe('instances', () => {
  it('an instance whose beat is late is silent, with its silence; uptime runs from its start', async () => {
    const { instances } = jsonOf<{
      instances: { instanceId: string; live: boolean; status: string; uptimeMs: number; lastBeatAgoMs: number }[]
    }>(await botmesh(['instances', '--json', '--scope', SCOPE, '--backend', url]))
    const killed = instances.find((i) => i.instanceId === 'killed')!
    expect(killed).toMatchObject({ live: true, status: 'silent' })
    expect(killed.lastBeatAgoMs).toBeGreaterThanOrEqual(300_000)
    const beating = instances.find((i) => i.instanceId === 'beating')!
    expect(beating.uptimeMs).toBeGreaterThanOrEqual(3_600_000)
    const human = await botmesh(['instances', '--scope', SCOPE, '--backend', url])
    expect(human.stdout).toMatch(/killed .* silent for 5m/)
  })
})

describe('show', () => {
  it('says what an explicit key means: one send of the bot, whatever the chat', async () => {
    const [shown] = jsonOf<{ why: string }[]>(await botmesh(['show', 'out-sent-old', '--json', '--scope', SCOPE, '--backend', url]))
    expect(shown!.why).toContain('it names this one send of the bot, whatever the chat')
  })

  it("counts attempts against the running bot's limits (from its heartbeat), or says the limit is unknown", async () => {
    const [shown] = jsonOf<{ why: string }[]>(await botmesh(['show', 'in-failed', '--json', '--scope', SCOPE, '--backend', url]))
    expect(shown!.why).toContain('attempt 2 of 3.')
    const [flagged] = jsonOf<{ why: string }[]>(
      await botmesh(['show', 'in-failed', '--max-attempts', '7', '--json', '--scope', SCOPE, '--backend', url]),
    )
    expect(flagged!.why).toContain('attempt 2 of 7.')
    const [alone] = jsonOf<{ why: string }[]>(await botmesh(['show', 'in-1', '--json', '--scope', EMPTY_SCOPE, '--backend', url]))
    expect(alone!.why).toMatch(/attempt 1 \(limit unknown/)
    expect(alone!.why).not.toMatch(/ of 5/)
  })
})

describe('stats', () => {
  it('with no live instance, says so instead of a rate of 0.0/s', async () => {
    const human = await botmesh(['stats', '--scope', EMPTY_SCOPE, '--backend', url])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/rates +unknown: no live instance/)
    expect(human.stdout).not.toContain('0.0/s')
  })

  it("the purge backlog: done and sent records past the live bots' retention, else the flag's, else 7 days", async () => {
    const statsOf = async (scope: string, ...flags: string[]) =>
      jsonOf<{ purgeBacklog: Record<string, unknown> | null }>(
        await botmesh(['stats', '--json', '--scope', scope, '--backend', url, ...flags]),
      )
    expect((await statsOf(SCOPE)).purgeBacklog).toEqual({
      inbox: 2,
      outbox: 1,
      total: 3,
      capped: false,
      retentionMs: HOUR_MS,
      retentionFrom: 'instances',
    })
    expect((await statsOf(SCOPE, '--retention', '5m')).purgeBacklog).toMatchObject({ inbox: 3, outbox: 1, retentionFrom: 'flag' })
    expect((await statsOf(SCOPE, '--retention', '0')).purgeBacklog).toBeNull()
    expect((await statsOf(EMPTY_SCOPE)).purgeBacklog).toMatchObject({
      inbox: 1,
      outbox: 0,
      retentionMs: 7 * 24 * HOUR_MS,
      retentionFrom: 'default',
    })
    const human = await botmesh(['stats', '--scope', SCOPE, '--backend', url])
    expect(human.stdout).toMatch(/purge backlog +│? *2 +│? *1/)
    expect(human.stdout).toMatch(/retention +1h 0m \(the live instances\)/)
    const prometheus = await botmesh(['stats', '--prometheus', '--backend', url])
    expect(prometheus.stdout).toContain(`botmesh_purge_backlog{scope="${SCOPE}",kind="inbox"} 2`)
    expect(prometheus.stdout).toContain(`botmesh_purge_backlog{scope="${EMPTY_SCOPE}",kind="inbox"} 1`)
  })
})

describe('replay', () => {
  it('with no live instance in the scope, warns that nothing will pick the record up (stderr, and `warnings` in --json)', async () => {
    const result = await botmesh(['replay', 'in-dead', '--yes', '--json', '--scope', EMPTY_SCOPE, '--backend', url])
    expect(result.code).toBe(0)
    const outcome = jsonOf<{ succeeded: number; warnings: string[] }>(result)
    expect(outcome.succeeded).toBe(1)
    expect(outcome.warnings).toEqual([
      expect.stringMatching(
        /^no live instance in scope acme\/prod\/quiet\/default: nothing will pick up the 1 re-queued record\(s\) until a bot runs there$/,
      ),
    ])
    expect(result.stderr).toContain('warning: no live instance')
  })
})

describe('--since', () => {
  it('a value it cannot read is refused, naming the forms it takes', async () => {
    for (const value of ['yesterday', '2024-13-45']) {
      const result = await botmesh(['dlq', 'list', '--since', value, '--scope', SCOPE, '--backend', url])
      expect(result.code, value).toBe(2)
      expect(result.stderr, value).toMatch(
        /--since must be a duration back from now \(30m, 2h, 7d, or milliseconds\) or an ISO 8601 date \(2024-05-01, 2024-05-01T10:00Z\)/,
      )
    }
  })
})
