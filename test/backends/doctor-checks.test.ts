/**
 * `botmesh doctor`'s judgements, as pure functions of what was read: the cases the machine's
 * servers cannot show (a lagging replica, a synchronous standby gone, a skewed clock, an old
 * server, clear text across a network), and the persistence grading held to the rule a start acts on.
 */
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { clockCheck, DOCTOR_LIMITS, isLoopback, persistenceCheck, versionBelow } from '../../src/backends/common/doctor.js'
import { freeSpaceCheck } from '../../src/backends/common/file-system-doctor.js'
import { persistenceAction, type PersistenceFinding } from '../../src/backends/common/persistence.js'
import { fullPageWritesCheck, replicationCheck as postgresReplication } from '../../src/backends/postgres/doctor-checks.js'
import type { RedisNodeFacts } from '../../src/backends/redis/doctor-facts.js'
import {
  evictionCheck,
  replicasOf,
  replicationCheck,
  tlsCheck,
  versionCheck,
  waitReplicasCheck,
} from '../../src/backends/redis/doctor-checks.js'

const node = (info: Record<string, string> | undefined, extra: Partial<RedisNodeFacts> = {}): RedisNodeFacts => ({
  address: '10.0.0.5:6379',
  host: '10.0.0.5',
  info,
  tls: undefined,
  ...extra,
})

const FINDINGS: PersistenceFinding[] = [
  { level: 'durable' },
  { level: 'volatile', id: 'x', settings: 'appendonly is "no"', loses: 'everything', fix: 'Turn on AOF' },
  { level: 'window', id: 'y', settings: 'appendfsync is "everysec"', loses: 'the last second' },
  { level: 'unreadable', settings: 'appendonly', why: 'CONFIG GET is not allowed there', check: 'AOF is on' },
]

describe('doctor: persistence graded as a start acts on it', () => {
  it.each(FINDINGS.flatMap((finding) => [false, true].map((required) => [finding, required] as const)))(
    '%o with requirePersistence %s',
    (finding, required) => {
      const expected = { none: 'ok', info: 'ok', warn: 'warn', refuse: 'fail' }[persistenceAction(finding, required)]
      const line = persistenceCheck('persistence', finding, required)
      expect(line.status).toBe(expected)
      if (line.status !== 'ok') expect(line.fix).toBeTruthy()
    },
  )
})

describe('doctor on Redis: the judgements', () => {
  const settings = (policy: string) => [
    { address: 'a:1', settings: { 'maxmemory-policy': policy, appendonly: 'yes', appendfsync: 'always', save: '' } },
  ]

  it('an evicting policy fails, accepted it warns, noeviction is ok', () => {
    expect(evictionCheck(settings('volatile-lru'), false).status).toBe('fail')
    expect(evictionCheck(settings('volatile-lru'), true).status).toBe('warn')
    expect(evictionCheck(settings('noeviction'), false).status).toBe('ok')
  })

  const primary = (slave0: string) => node({ role: 'master', connected_slaves: '1', master_repl_offset: '5000', slave0 })

  it('reads the replicas INFO lists, with how far behind each is', () => {
    expect(replicasOf(primary('ip=10.0.0.6,port=6380,state=online,offset=4000,lag=1').info!)).toEqual([
      { address: '10.0.0.6:6380', state: 'online', lagSeconds: 1, behindBytes: 1000 },
    ])
  })

  it('a replica online and close is ok; one behind the limit or not online warns', () => {
    expect(replicationCheck([primary('ip=10.0.0.6,port=6380,state=online,offset=5000,lag=0')], DOCTOR_LIMITS).status).toBe('ok')
    const late = replicationCheck([primary('ip=10.0.0.6,port=6380,state=online,offset=10,lag=9')], DOCTOR_LIMITS)
    expect(late).toMatchObject({ status: 'warn', found: expect.stringContaining('10.0.0.6:6380 online, lag 9 s, 4990 bytes behind') })
    expect(replicationCheck([primary('ip=10.0.0.6,port=6380,state=wait_bgsave,offset=0,lag=0')], DOCTOR_LIMITS).status).toBe('warn')
    expect(replicationCheck([node(undefined, { infoRefused: 'INFO is not allowed there' })], DOCTOR_LIMITS)).toMatchObject({
      status: 'warn',
      found: 'could not be checked: INFO is not allowed there',
    })
  })

  it('waitReplicas: not needed alone, a warn with replicas, a fail when more are asked than connected', () => {
    expect(waitReplicasCheck(undefined, [0]).status).toBe('ok')
    expect(waitReplicasCheck(undefined, [1])).toMatchObject({ status: 'warn', found: expect.stringMatching(/^not set/) })
    expect(waitReplicasCheck(2, [1]).status).toBe('fail')
    expect(waitReplicasCheck(1, [1, 2]).status).toBe('ok')
    expect(waitReplicasCheck(undefined, [1]).fix).toMatch(/waitReplicas: 1 \(&waitReplicas=1/)
  })

  it('waitReplicas in effect names WAIT, or WAITAOF where every master has it', () => {
    expect(waitReplicasCheck(1, [1], ['7.0.15']).found).toMatch(/^1: .*\(WAIT: in their memory; WAITAOF, on disk, needs Redis 7\.2\)$/)
    expect(waitReplicasCheck(1, [1, 1], ['7.2.4', '7.0.15']).found).toContain('(WAIT:')
    expect(waitReplicasCheck(2, [2], ['7.4.1']).found).toContain('(WAITAOF: in their AOF on disk')
  })

  it('the version: below the store fails, WAITAOF named from 7.2', () => {
    expect(versionCheck([node({ redis_version: '2.8.0' })]).status).toBe('fail')
    expect(versionCheck([node({ redis_version: '7.0.15' })]).found).toContain(
      'WAITAOF (waiting until replicas have a write on disk) needs 7.2',
    )
    expect(versionCheck([node({ redis_version: '7.2.4' }), node({ redis_version: '7.4.0' })]).found).toBe('Redis 7.2.4; WAITAOF is there')
    expect(versionBelow('7.0.15', '7.2')).toBe(true)
    expect(versionBelow('7.10', '7.2')).toBe(false)
  })

  it('TLS: clear text to another machine warns, to this one is ok', () => {
    expect(tlsCheck([node({})], isLoopback).status).toBe('warn')
    expect(tlsCheck([node({}, { host: '127.0.0.1' })], isLoopback).status).toBe('ok')
    expect(tlsCheck([node({}, { tls: 'TLSv1.3' })], isLoopback)).toMatchObject({ status: 'ok', found: 'TLSv1.3 to every node' })
  })
})

describe('doctor: the clock', () => {
  it('warns past clockSkewMsMax, after the round trip is allowed for', () => {
    expect(clockCheck(50, 2, DOCTOR_LIMITS).status).toBe('ok')
    expect(clockCheck(-5_000, 2, DOCTOR_LIMITS)).toMatchObject({ status: 'warn', found: expect.stringContaining('5000 ms behind') })
    expect(clockCheck(1_500, 1_200, DOCTOR_LIMITS).status).toBe('ok')
  })
})

describe('doctor on PostgreSQL: replication and full_page_writes', () => {
  const standby = { application_name: 'replica1', client_addr: '10.0.0.7', state: 'streaming', replay_lag_ms: 3 }
  const facts = { inRecovery: false, synchronousStandbyNames: '', synchronousCommit: 'on', standbys: [] }

  it('a lone server is ok, a standby pointed at fails', () => {
    expect(postgresReplication(facts, DOCTOR_LIMITS).status).toBe('ok')
    expect(postgresReplication({ ...facts, inRecovery: true }, DOCTOR_LIMITS).status).toBe('fail')
  })

  it('an asynchronous standby warns; a synchronous one with synchronous_commit on is ok, with local it warns', () => {
    const async = postgresReplication({ ...facts, standbys: [{ ...standby, sync_state: 'async' }] }, DOCTOR_LIMITS)
    expect(async).toMatchObject({ status: 'warn', fix: expect.stringContaining('synchronous_standby_names') })
    const sync = { ...facts, synchronousStandbyNames: 'FIRST 1 (replica1)', standbys: [{ ...standby, sync_state: 'sync' }] }
    expect(postgresReplication(sync, DOCTOR_LIMITS).status).toBe('ok')
    expect(postgresReplication({ ...sync, synchronousCommit: 'local' }, DOCTOR_LIMITS).status).toBe('warn')
  })

  it('synchronous_standby_names set with no synchronous standby connected fails: commits hang', () => {
    const gone = { ...facts, synchronousStandbyNames: 'FIRST 1 (replica1)', standbys: [] }
    expect(postgresReplication(gone, DOCTOR_LIMITS)).toMatchObject({
      status: 'fail',
      found: expect.stringContaining('journal writes hang'),
    })
  })

  it('full_page_writes off warns', () => {
    expect(fullPageWritesCheck('off').status).toBe('warn')
    expect(fullPageWritesCheck('on').status).toBe('ok')
  })
})

describe('doctor: free space', () => {
  it('warns under diskFreeBytesMin', async () => {
    expect((await freeSpaceCheck(tmpdir(), 1)).status).toBe('ok')
    expect(await freeSpaceCheck(tmpdir(), Number.MAX_SAFE_INTEGER)).toMatchObject({
      status: 'warn',
      found: expect.stringContaining('a full disk refuses every journal write'),
    })
  })
})
