/**
 * Several replicas as real processes, on each shared backend (PostgreSQL, Redis): four replica
 * processes (test/fixtures/replicas/replica.ts), each with its own explicit instanceId and 1 s leases,
 * share one backend and one stream of inbound messages. This process is the channel and the load
 * balancer: chats are partitioned between the replicas (sticky routing), a chat's messages are
 * delivered in order, each once the one before was acknowledged and its handler started somewhere (a
 * user writes again once the bot reacted), and an unacknowledged delivery is delivered again to the
 * replica the chat is routed to now.
 *
 * One replica is killed with SIGKILL in the middle of a handler (its chats are routed to a live
 * replica, and its leased records are claimed by others once their leases expire). Another is frozen
 * with SIGSTOP in the middle of a handler until a live replica has claimed and finished that record,
 * then resumed with SIGCONT: its late completion is refused and counted in its staleLeases.
 *
 * The verdict comes from the oracle file (verdict.ts): every message handled, every reply sent exactly
 * once (the ambiguous window counted apart), no fencing token taken twice, no two live holders.
 */
import { describe, expect, it } from 'vitest'
import type { DurabilityMetrics } from '../../src/core/durability/metrics.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { readReplicaLines } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { replicaVerdict } from '../fixtures/replicas/verdict.js'
import { recordId } from '../../test-utils/record-id.js'
import { waitFor } from '../../test-utils/wait.js'
import { sharedTargets, type SharedStorage } from './shared-targets.js'
import { freshOracle } from '../fixtures/replicas/oracle-dir.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const targets = await sharedTargets()

const REPLICAS = 4
const CHATS = 12
const MESSAGES_PER_CHAT = 4
const LEASE_MS = 1_000
/** Handlers of "slow" messages take longer than a lease: only the heartbeat keeps them. */
const SLOW_MS = 1_500
const BOT_ID = 'replicas'
const SCOPE = `default/default/${BOT_ID}/default`
/** The message whose handler the SIGKILL lands in (chat c1 is routed to r1), and the one r2 freezes in: inbox record ids. */
const KILLED_IN = recordId('c1.2', 'c1')
const FROZEN_IN = recordId('c2.2', 'c2')

/** The inbound stream: CHATS chats of MESSAGES_PER_CHAT messages; a chat's second message is slow in c1, c2 and c7. */
function inboundStream(): InboundEvent[][] {
  return Array.from({ length: CHATS }, (_, chat) =>
    Array.from({ length: MESSAGES_PER_CHAT }, (_, n) => {
      const id = `c${chat}.${n + 1}`
      const slow = n === 1 && [1, 2, 7].includes(chat)
      return { id, chatId: `c${chat}`, text: `${slow ? 'slow' : 'msg'} ${id}` }
    }),
  )
}

describe.each(targets)('four replica processes on $name', (target) => {
  const cleanups = useCleanups({ ignoreFailures: true })

  it.runIf(target.available)(
    'one SIGKILLed and one SIGSTOPped mid-handler: every message handled, every reply once, the frozen one’s late completion refused, no token taken twice, never two live holders',
    async () => {
      const storage = target.fresh()
      const oracleFile = freshOracle('botmesh-replicas-', storage, cleanups)

      const replicas = await ReplicaProcess.startAll(
        REPLICAS,
        {
          botId: BOT_ID,
          backendModule: storage.module,
          backendArg: storage.arg,
          oracleFile,
          leaseMs: LEASE_MS,
          pollMs: 100,
          slowMs: SLOW_MS,
        },
        cleanups,
      )
      const [, killed, frozen] = replicas as [ReplicaProcess, ReplicaProcess, ReplicaProcess, ReplicaProcess]
      const thawed = { done: false }
      let killedNow = false
      killed.onHandler((id) => {
        if (id !== KILLED_IN || killedNow) return
        killed.signal('SIGKILL')
        killedNow = true
      })
      let frozenNow = false
      frozen.onHandler((id) => {
        if (id !== FROZEN_IN || thawed.done || frozenNow) return
        frozen.signal('SIGSTOP')
        frozenNow = true
      })

      // The load balancer: a chat stays on its replica while that one is up; a dead replica's chats move.
      const routes = new Map<string, ReplicaProcess>()
      const stream = inboundStream()
      stream.forEach((messages, n) => routes.set(messages[0]!.chatId, replicas[n % REPLICAS]!))
      const counts = { deliveries: 0, redeliveries: 0, rerouted: 0 }
      // A user writes again once the bot started on the last message (wherever it runs), so deliveries are
      // still in flight when a replica dies.
      const started = new Set<string>()
      for (const replica of replicas) replica.onHandler((id) => started.add(id))
      const deliverChat = async (messages: InboundEvent[]) => {
        for (const event of messages) {
          for (let attempt = 0; ; attempt++) {
            const replica = routes.get(event.chatId)!
            counts.deliveries++
            if (attempt > 0) counts.redeliveries++
            const outcome = await replica.deliver(event)
            if (outcome === 'acked') break
            if (outcome === 'gone') {
              routes.set(
                event.chatId,
                replicas.find((r) => !r.gone && r !== frozen)!,
              )
              counts.rerouted++
            }
            if (attempt > 50) throw new Error(`${event.id} was never acknowledged`)
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
          await waitFor(() => started.has(recordId(event.id, event.chatId)), {
            timeoutMs: 60_000,
            intervalMs: 10,
            message: `a handler of ${event.id} started`,
          })
        }
      }
      const delivering = Promise.all(stream.map(deliverChat))

      // Thaw the frozen replica only once a live replica has claimed its record and finished it.
      const probe = storage.open()
      await probe.start()
      cleanups.push(() => probe.stop())
      const journal = probe.journal(SCOPE)
      await waitFor(() => frozenNow, { timeoutMs: 60_000, intervalMs: 20, message: `${frozen.name} frozen in the handler of ${FROZEN_IN}` })
      const takenOver = await waitFor(
        async () => {
          const [found] = await journal.read('inbox', [FROZEN_IN])
          return found && found.record.state === 'done' && found.record.fencingToken >= 2 ? found.record : undefined
        },
        {
          timeoutMs: 60_000,
          intervalMs: 50,
          message: `${FROZEN_IN} claimed and finished by a live replica while ${frozen.name} is frozen`,
        },
      )
      thawed.done = true
      frozen.signal('SIGCONT')

      await delivering
      await waitFor(() => killedNow, { timeoutMs: 60_000, intervalMs: 20, message: `${killed.name} killed in the handler of ${KILLED_IN}` })
      await killed.exited
      // Settled: every inbound done, no send left to make or to settle.
      await waitFor(
        async () => {
          const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
          return inbox.done === CHATS * MESSAGES_PER_CHAT && !outbox.pending && !outbox.sending && !outbox.failed
        },
        { timeoutMs: 60_000, intervalMs: 100, message: 'the journal settled (every inbound done, every send settled)' },
      )
      const metrics = new Map<string, DurabilityMetrics | undefined>()
      for (const replica of replicas) metrics.set(replica.name, await replica.stop())
      const unknown = await journal.list('outbox', { state: 'unknown', limit: 1_000 })

      const lines = readReplicaLines(oracleFile)
      const verdict = replicaVerdict(
        lines,
        stream.flat(),
        unknown.map((found) => found.record.key),
      )
      const sum = (name: keyof DurabilityMetrics) => [...metrics.values()].reduce((total, m) => total + (m?.[name] ?? 0), 0)
      console.log(
        `${target.name}, ${REPLICAS} replica processes, ${verdict.messages} messages in ${CHATS} chats: ${counts.deliveries} deliveries ` +
          `(${counts.redeliveries} redelivered, ${counts.rerouted} rerouted from the killed replica); replies once ${verdict.repliedOnce}, ` +
          `ambiguous ${verdict.ambiguous} (lost in the window ${verdict.lostAmbiguous}); ${verdict.claims} claims over ${verdict.leaseWrites} lease writes, ` +
          `${verdict.reclaimed} records claimed again, max token ${verdict.maxToken}; writes refused ${JSON.stringify(verdict.refusedByReplica)}; ` +
          `staleLeases ${JSON.stringify(Object.fromEntries([...metrics].map(([name, m]) => [name, m?.staleLeases ?? 'killed'])))}, ` +
          `inboundReplayed ${sum('inboundReplayed')}, inboundDuplicates ${sum('inboundDuplicates')}, outboxDeduped ${sum('outboxDeduped')}, outboxAmbiguous ${sum('outboxAmbiguous')}`,
      )

      expect(verdict.problems).toEqual([])
      expect(await killed.exited).toBe('SIGKILL')
      expect(metrics.get(killed.name)).toBeUndefined()
      // The frozen replica came back: its late completion of FROZEN_IN was refused and counted.
      expect(takenOver.fencingToken).toBeGreaterThanOrEqual(2)
      expect(metrics.get(frozen.name)!.staleLeases).toBeGreaterThanOrEqual(1)
      const frozenWrites = lines.flatMap((line) =>
        'refused' in line && line.refused.replica === frozen.name && line.refused.id === FROZEN_IN ? [line.refused.write] : [],
      )
      expect(frozenWrites.some((write) => write === 'inbox.heartbeat' || write === 'inbox.complete')).toBe(true)
      const frozenCompleted = lines.some(
        (line) =>
          'released' in line &&
          line.released.replica === frozen.name &&
          line.released.id === FROZEN_IN &&
          line.released.write === 'inbox.complete',
      )
      expect(frozenCompleted).toBe(false)
      // The killed replica's records were taken over by the others.
      expect(sum('inboundReplayed')).toBeGreaterThanOrEqual(2)
    },
    180_000,
  )
})

describe('the verdict of a replica run', () => {
  const messages: InboundEvent[] = [{ id: 'c0.1', chatId: 'c0', text: 'msg c0.1' }]
  /** The inbox record id of c0.1 (what the replicas log, reply with, and derive send keys from). */
  const id = recordId('c0.1', 'c0')
  const lease = (replica: string, token: number, acquiredAt: number, expiresAt: number) =>
    ({
      lease: {
        kind: 'inbox',
        id,
        write: token === 1 ? 'inbox.admit' : 'inbox.claim',
        replica,
        owner: `replica-${replica}`,
        token,
        acquiredAt,
        expiresAt,
      },
    }) as const
  const acked = { acked: 'c0.1' } as const
  const reply = { sent: { chatId: 'c0', text: `re ${id}` } } as const

  it('passes a clean failover: the second claim starts after the first lease expired', () => {
    expect(
      replicaVerdict([acked, lease('r0', 1, 0, 1_000), lease('r0', 1, 0, 1_300), lease('r1', 2, 1_300, 2_300), reply], messages).problems,
    ).toEqual([])
  })

  it('catches two live holders, a token taken twice, a duplicate reply, a lost one and an unacknowledged message', () => {
    expect(replicaVerdict([acked, lease('r0', 1, 0, 1_000), lease('r1', 2, 900, 1_900), reply, reply], messages).problems).toEqual([
      'the reply to c0.1 went out 2 times',
      `inbox:${id}: token 2 (replica-r1) was taken at 900, while token 1 (replica-r0) was live until 1000`,
    ])
    expect(replicaVerdict([lease('r0', 1, 0, 1_000), lease('r1', 1, 0, 1_000)], messages).problems).toEqual([
      'never acknowledged: c0.1',
      'the reply to c0.1 went out 0 times',
      `inbox:${id}: token 1 was taken by replica-r0 and replica-r1`,
    ])
  })

  it('allows a reply lost in the ambiguous window under onAmbiguous skip, never a duplicate', () => {
    expect(replicaVerdict([acked, { ambiguous: `${id}:1` }], messages)).toMatchObject({ problems: [], lostAmbiguous: 1 })
    expect(replicaVerdict([acked, reply, reply], messages, [`${id}:1`]).problems).toEqual([
      'the reply to c0.1 went out 2 times (its send was ambiguous)',
    ])
  })
})
