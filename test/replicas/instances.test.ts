/**
 * `botmesh instances` (its service and view) shows which replica leads the transport session and
 * which hold chat turns, from the session and turn records the replicas keep in the journal.
 */
import { describe, expect, it } from 'vitest'
import { MemoryDurability } from '../../src/core/index.js'
import { listInstances } from '../../src/operator/instances.js'
import { instancesView } from '../../src/cli/views/status.js'
import type { InstanceRecord, SessionRecord, TurnRecord } from '../../src/core/durability/journal/records.js'

const NOW = 1_000_000

function instance(instanceId: string): InstanceRecord {
  return {
    instanceId,
    botId: 'b',
    host: 'h',
    pid: 1,
    startedAt: NOW - 60_000,
    lastBeatAt: NOW - 1_000,
    lastSweepAt: NOW - 1_000,
    expiresAt: NOW + 14_000,
    metrics: {},
  }
}

const lease = (owner: string, expiresAt: number) => ({ owner, token: 3, acquiredAt: NOW - 500, expiresAt })

function turn(chatId: string, owner: string, expiresAt: number): TurnRecord {
  return {
    chatId,
    queue: [{ id: `${chatId}:1`, createdAt: NOW }],
    holder: { ...lease(owner, expiresAt), inboxId: `${chatId}:1` },
    fencingToken: 3,
    updatedAt: NOW,
  }
}

describe('botmesh instances with coordinated replicas', () => {
  it('marks the leader of the transport session and lists the chat turns each replica holds; expired ones are not shown', async () => {
    const backend = new MemoryDurability()
    await backend.start()
    const journal = backend.journal('scope')
    const session: SessionRecord = { name: 'transport', holder: lease('r1', NOW + 5_000), fencingToken: 2, updatedAt: NOW }
    await journal.write(
      'instances.beat',
      ['r0', 'r1', 'r2'].map((id) => ({ kind: 'instances', record: instance(id), expectVersion: 0 }) as const),
    )
    await journal.write('session.claim', [{ kind: 'sessions', record: session, expectVersion: 0 }])
    await journal.write('turn.claim', [
      { kind: 'turns', record: turn('c1', 'r0', NOW + 5_000), expectVersion: 0 },
      { kind: 'turns', record: turn('c2', 'r0', NOW + 5_000), expectVersion: 0 },
      { kind: 'turns', record: turn('c3', 'r2', NOW - 1), expectVersion: 0 },
    ])
    const instances = await listInstances(journal, NOW)
    expect(instances.map((i) => [i.instanceId, i.leader, i.turns])).toEqual([
      ['r0', false, ['c1', 'c2']],
      ['r1', true, []],
      ['r2', false, []],
    ])
    const [block] = instancesView(NOW)(instances) as {
      table: { columns: { header: string; value: (i: unknown) => unknown }[]; rows: unknown[] }
    }[]
    const cell = (header: string) => instances.map((i) => block!.table.columns.find((c) => c.header === header)!.value(i))
    expect(cell('role')).toEqual(['', 'leader', ''])
    expect(cell('turns')).toEqual(['c1 c2', '', ''])
    await backend.stop()
  })
})

describe('the dashboard instance detail with coordinated replicas', () => {
  it('names the leader and the chat turns an instance holds', async () => {
    const { instanceDetail } = await import('../../src/tui/views/detail-lines.js')
    const base = { ...instance('r0'), live: true, status: 'live' as const, lastBeatAgoMs: 1_000, uptimeMs: 60_000 }
    const lines = instanceDetail({ ...base, leader: true, turns: ['c1', 'c2'] }, NOW).lines.join('\n')
    expect(lines).toMatch(/role .*leader/)
    expect(lines).toMatch(/chat turns .*c1 c2/)
    expect(instanceDetail({ ...base, leader: false, turns: [] }, NOW).lines.join('\n')).not.toMatch(/role|chat turns/)
  })
})
