/**
 * `providerSession: 'leader'` with real processes on each shared backend (PostgreSQL, Redis): three
 * replicas elect one transport holder; only it starts its transport and receives. It is SIGKILLed in
 * the middle of slow handlers, before their replies; once its lease is over a standby takes the
 * session, starts its transport, and the replies (made by whichever replica replays the messages,
 * journaled for the leader on a standby) go out once. The fake transport logs every call: no replica
 * that was never elected ever called it.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { readReplicaLines } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { recordId } from '../../test-utils/record-id.js'
import { waitFor } from '../../test-utils/wait.js'
import { sharedTargets } from '../backends/shared-targets.js'
import { freshOracle } from '../fixtures/replicas/oracle-dir.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const targets = await sharedTargets()
const REPLICAS = 3
const MESSAGES = 6
// Short enough to pass on within a test, long enough that a replica starved by a loaded host (load 10+)
// keeps its turn and its session: with 1 s, a starved holder lost them and the takeovers blurred the oracle.
const LEASE_MS = 3_000
const BOT_ID = 'leader'
const SCOPE = `default/default/${BOT_ID}/default`

describe.each(targets)('a leader-only transport session across replica processes on $name', (target) => {
  const cleanups = useCleanups({ ignoreFailures: true })

  it.runIf(target.available)(
    'the leader SIGKILLed with replies pending: a standby takes the session after the lease and delivers them once; no standby ever called the transport',
    async () => {
      const storage = target.fresh()
      const oracleFile = freshOracle('botmesh-leader-', storage, cleanups)
      const replicas = await ReplicaProcess.startAll(
        REPLICAS,
        {
          botId: BOT_ID,
          backendModule: storage.module,
          backendArg: storage.arg,
          oracleFile,
          leaseMs: LEASE_MS,
          pollMs: 100,
          slowMs: 2_000,
          coordination: true,
          providerSession: 'leader',
        },
        cleanups,
      )
      const probe = storage.open()
      await probe.start()
      cleanups.push(() => probe.stop())
      const journal = probe.journal(SCOPE)
      const holderOf = async () => (await journal.read('sessions', ['transport']))[0]?.record.holder?.owner
      const firstOwner = await waitFor(holderOf, { timeoutMs: 30_000, message: 'a leader elected' })
      const leader = replicas.find((r) => r.instanceId === firstOwner)!

      // Only the leader's transport runs, so only it receives: slow handlers, killed before they reply.
      const events: InboundEvent[] = Array.from({ length: MESSAGES }, (_, n) => ({ id: `m${n}`, chatId: `d${n}`, text: `slow m${n}` }))
      const started = new Set<string>()
      leader.onHandler((id) => started.add(id))
      for (const event of events) expect(await leader.deliver(event)).toBe('acked')
      await waitFor(() => started.size === MESSAGES, { timeoutMs: 30_000, message: 'every handler started on the leader' })
      leader.signal('SIGKILL')
      await leader.exited

      const secondOwner = await waitFor(
        async () => {
          const owner = await holderOf()
          return owner && owner !== firstOwner ? owner : undefined
        },
        { timeoutMs: 30_000, intervalMs: 50, message: 'a standby took the session' },
      )
      await waitFor(
        async () => {
          const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
          return inbox.done === MESSAGES && outbox.sent === MESSAGES
        },
        { timeoutMs: 60_000, intervalMs: 100, message: 'every message done, every reply sent' },
      )
      // Standbys stop before the new leader: a leader stopping first releases the session, and a standby
      // still running (slow to stop on a loaded machine) would take it and start its transport.
      const newLeader = replicas.find((r) => r.instanceId === secondOwner)!
      const standbys = replicas.filter((r) => r !== leader && r !== newLeader)
      for (const replica of [...standbys, newLeader]) await replica.stop()

      const lines = readReplicaLines(oracleFile)
      const startedTransport = lines.flatMap((line) => ('transportStarted' in line ? [line.transportStarted] : []))
      const calls = lines.flatMap((line) => ('transportCall' in line ? [line.transportCall.replica] : []))
      console.log(
        `${target.name}, ${REPLICAS} replicas, providerSession 'leader': transports started by ${startedTransport.join(', ')}; ` +
          `transport calls ${JSON.stringify(Object.fromEntries(replicas.map((r) => [r.name, calls.filter((c) => c === r.name).length])))}`,
      )
      expect(startedTransport.sort()).toEqual([leader.name, newLeader.name].sort())
      // Standbys never called the transport: every call came from the new leader (the old one was killed before replying).
      expect(calls.every((replica) => replica === newLeader.name)).toBe(true)
      for (const event of events) {
        const text = `re ${recordId(event.id, event.chatId)}`
        expect(lines.filter((line) => 'sent' in line && line.sent.chatId === event.chatId && line.sent.text === text).length, text).toBe(1)
      }
    },
    120_000,
  )
})
