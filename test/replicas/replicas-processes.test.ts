/**
 * Running N replicas with `coordination`, as real processes on each shared backend (PostgreSQL,
 * Redis): four replica processes (test/fixtures/replicas/replica.ts) behind a round-robin "load
 * balancer" (this process) that spreads every chat's messages over all replicas. Each chat runs a
 * persistent signup flow whose steps land on different replicas, then a burst of messages delivered
 * at once to different replicas. One replica is SIGKILLed and one SIGSTOPped in the middle of a
 * chat's turn. The oracle (handler start/end per chat, every transport call) shows: no two handlers
 * of a chat overlap, bursts run in arrival order, every reply goes out once, and the frozen replica,
 * resumed, completes nothing (its refusals counted in staleLeases).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { DurabilityMetrics } from '../../src/core/durability/metrics.js'
import type { InboundEvent } from '../../src/core/provider/provider.js'
import { readReplicaLines, type ReplicaLine } from '../fixtures/replicas/protocol.js'
import { ReplicaProcess } from '../fixtures/replicas/replica-process.js'
import { recordId } from '../../test-utils/record-id.js'
import { waitFor } from '../../test-utils/wait.js'
import { sharedTargets } from '../backends/shared-targets.js'
import { freshOracle } from '../fixtures/replicas/oracle-dir.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const targets = await sharedTargets()

const REPLICAS = 4
const CHATS = 6
const BURST = 3
// Short enough to pass on within a test, long enough that a replica starved by a loaded host (load 10+)
// keeps its turn and its session: with 1 s, a starved holder lost them and the takeovers blurred the oracle.
const LEASE_MS = 3_000
const SLOW_MS = 1_500
const BOT_ID = 'coordinated'
const SCOPE = `default/default/${BOT_ID}/default`
/** A delivery not acknowledged within this time goes to another replica (the frozen one never answers). */
const DELIVERY_TIMEOUT_MS = 5_000
/**
 * The slow first burst message of c1 goes to the replica that dies in it, which is up and answers (or
 * dies: the delivery ends at once): on a loaded host it may take longer than a delivery's timeout, and
 * redelivered elsewhere the scenario's SIGKILL would never come. (The frozen one keeps the short
 * timeout: frozen before its acknowledgement is out, it never answers.)
 */
const KILLED_DELIVERY_TIMEOUT_MS = 60_000
/** The burst messages the SIGKILL and the SIGSTOP land in (slow ones). */
const KILLED_IN = recordId('c1.b1', 'c1')
const FROZEN_IN = recordId('c2.b1', 'c2')

/** The messages of chat c: the signup (three steps), then a burst, its first one slow in c1 and c2. */
function chatMessages(c: number): { signup: InboundEvent[]; burst: InboundEvent[] } {
  const chatId = `c${c}`
  return {
    signup: [
      { id: `c${c}.s1`, chatId, text: 'signup' },
      { id: `c${c}.s2`, chatId, text: `name${c}` },
      { id: `c${c}.s3`, chatId, text: `mail${c}` },
    ],
    burst: Array.from({ length: BURST }, (_, n) => ({
      id: `c${c}.b${n + 1}`,
      chatId,
      text: `${n === 0 && (c === 1 || c === 2) ? 'slow' : 'msg'} c${c}.b${n + 1}`,
    })),
  }
}

/** Runs of a chat's handlers (start to end) that overlapped, apart from runs that never ended or were fenced. */
function overlaps(lines: ReplicaLine[], fenced: (run: { id: string; replica: string }) => boolean): string[] {
  const runs = new Map<string, { chatId: string; id: string; replica: string; start: number; end?: number }>()
  for (const line of lines) {
    if (!('turn' in line)) continue
    const { chatId, id, replica, at, t } = line.turn
    const key = `${replica}|${id}|${chatId}`
    if (at === 'start') runs.set(`${key}|${t}`, { chatId, id, replica, start: t })
    else {
      const open = [...runs.entries()].filter(([k, run]) => k.startsWith(`${key}|`) && run.end === undefined).pop()
      if (open) open[1].end = t
    }
  }
  const ended = [...runs.values()].filter((run) => run.end !== undefined && !fenced(run))
  const found: string[] = []
  for (const a of ended)
    for (const b of ended)
      if (a !== b && a.chatId === b.chatId && a.start < b.start && b.start < a.end!)
        found.push(`${b.id}@${b.replica} started while ${a.id}@${a.replica} ran`)
  return found
}

describe.each(targets)('four coordinated replica processes on $name', (target) => {
  const cleanups = useCleanups({ ignoreFailures: true })

  it.runIf(target.available)(
    'round robin per message: signups complete across replicas, no two handlers of a chat overlap, replies once; a SIGKILLed and a SIGSTOPped turn pass on by lease',
    async () => {
      const storage = target.fresh()
      const oracleFile = freshOracle('botmesh-coordinated-', storage, cleanups)
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
          coordination: true,
        },
        cleanups,
      )
      const [, killed, frozen] = replicas as [ReplicaProcess, ReplicaProcess, ReplicaProcess, ReplicaProcess]
      const state = { killed: false, frozen: false, thawed: false }
      killed.onHandler((id) => {
        if (id === KILLED_IN && !state.killed) (killed.signal('SIGKILL'), (state.killed = true))
      })
      frozen.onHandler((id) => {
        if (id === FROZEN_IN && !state.frozen) (frozen.signal('SIGSTOP'), (state.frozen = true))
      })
      const probe = storage.open()
      await probe.start()
      cleanups.push(() => probe.stop())
      const journal = probe.journal(SCOPE)

      // The balancer: round robin over the replicas up now; an unacknowledged delivery goes to the next one.
      let next = 0
      const counts = { deliveries: 0, redeliveries: 0 }
      /** Every delivery and its outcome, on the host's wall clock: printed for a chat whose order broke. */
      const deliveryLog: { id: string; to: string; attempt: number; outcome: string; sentAt: number; at: number }[] = []
      const up = () => replicas.filter((r) => !r.gone && !(r === frozen && state.frozen && !state.thawed))
      const deliver = async (event: InboundEvent, prefer?: ReplicaProcess) => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const live = up()
          const replica = attempt === 0 && prefer && live.includes(prefer) ? prefer : live[next++ % live.length]!
          counts.deliveries++
          if (attempt > 0) counts.redeliveries++
          const waitMs = attempt === 0 && replica === prefer && prefer === killed ? KILLED_DELIVERY_TIMEOUT_MS : DELIVERY_TIMEOUT_MS
          const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), waitMs).unref())
          const sentAt = Date.now()
          const outcome = await Promise.race([replica.deliver(event), timeout])
          deliveryLog.push({ id: event.id, to: replica.name, attempt, outcome, sentAt, at: Date.now() })
          if (outcome === 'acked') return
        }
        throw new Error(`${event.id} was never acknowledged`)
      }
      const settled = (id: string) =>
        waitFor(async () => (await journal.read('inbox', [id]))[0]?.record.state === 'done', {
          timeoutMs: 60_000,
          intervalMs: 25,
          message: `${id} done`,
        })
      const runChat = async (c: number) => {
        const { signup, burst } = chatMessages(c)
        // A user answers once the bot asked: each step lands on another replica.
        for (const event of signup) {
          await deliver(event)
          await settled(recordId(event.id, event.chatId))
        }
        // Then writes three messages at once; the slow ones of c1 and c2 go to the replica that dies or freezes in them.
        const target = c === 1 ? killed : c === 2 ? frozen : undefined
        await deliver(burst[0]!, target)
        await Promise.all(burst.slice(1).map((event) => deliver(event)))
      }
      const chats = Promise.all(Array.from({ length: CHATS }, (_, c) => runChat(c)))

      await waitFor(() => state.frozen, { timeoutMs: 60_000, intervalMs: 20, message: `${frozen.name} frozen in ${FROZEN_IN}` })
      const takenOver = await waitFor(
        async () => {
          const [found] = await journal.read('inbox', [FROZEN_IN])
          return found && found.record.state === 'done' && found.record.fencingToken >= 2 ? found.record : undefined
        },
        { timeoutMs: 60_000, intervalMs: 50, message: `${FROZEN_IN} finished elsewhere while ${frozen.name} is frozen` },
      )
      state.thawed = true
      frozen.signal('SIGCONT')
      await chats
      expect(
        state.killed,
        `${KILLED_IN} never started on ${killed.name}: ${JSON.stringify(deliveryLog.filter((d) => d.id === 'c1.b1'))}`,
      ).toBe(true)
      const all = Array.from({ length: CHATS }, (_, c) => chatMessages(c)).flatMap(({ signup, burst }) => [...signup, ...burst])
      await waitFor(
        async () => {
          const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
          return inbox.done === all.length && !outbox.pending && !outbox.sending && !outbox.failed
        },
        { timeoutMs: 60_000, intervalMs: 100, message: 'every inbound done, every send settled' },
      )
      const metrics = new Map<string, DurabilityMetrics | undefined>()
      for (const replica of replicas) metrics.set(replica.name, await replica.stop())
      const lines = readReplicaLines(oracleFile)

      // Replies: every expected text exactly once per chat.
      const sent = lines.flatMap((line) => ('sent' in line ? [`${line.sent.chatId}|${line.sent.text}`] : []))
      const ambiguous = lines.filter((line) => 'ambiguous' in line).length
      const problems: string[] = []
      for (let c = 0; c < CHATS; c++) {
        const expected = [
          'name?',
          'email?',
          `welcome name${c} mail${c}`,
          ...chatMessages(c).burst.map((event) => `re ${recordId(event.id, event.chatId)}`),
        ]
        for (const text of expected) {
          const times = sent.filter((s) => s === `c${c}|${text}`).length
          if (times !== 1) problems.push(`c${c}: "${text}" went out ${times} times`)
        }
      }
      // Runs whose replica lost the turn while they ran (the frozen one; on a very loaded machine also a
      // starved one, which a lease cannot tell from a frozen one) and could not complete them (their inbox
      // completion refused): left out of the overlap count, and reported.
      const completedBy = (replica: string, id: string) =>
        lines.some(
          (line) =>
            'released' in line && line.released.replica === replica && line.released.id === id && line.released.write === 'inbox.complete',
        )
      const refusedTo = (replica: string, id: string) =>
        lines.some((line) => 'refused' in line && line.refused.replica === replica && line.refused.id === id)
      const fenced = (run: { id: string; replica: string }) =>
        !completedBy(run.replica, run.id) && (run.replica === frozen.name || refusedTo(run.replica, run.id))
      const fencedRuns = [
        ...new Set(lines.flatMap((line) => ('turn' in line && fenced(line.turn) ? [`${line.turn.id}@${line.turn.replica}`] : []))),
      ]
      const overlapping = overlaps(lines, fenced)
      // What it takes to tell why two runs of a chat overlapped: the chat's deliveries and oracle lines.
      for (const chat of new Set(overlapping.map((found) => found.slice(0, found.indexOf('.'))))) {
        console.log(`${chat} overlapped: deliveries ${JSON.stringify(deliveryLog.filter((d) => d.id.startsWith(`${chat}.`)))}`)
        console.log(`${chat} lines ${JSON.stringify(lines.filter((line) => JSON.stringify(line).includes(`"${chat}`)))}`)
      }
      // Bursts in arrival order: the runs, by start time, follow the inbox records' createdAt.
      for (let c = 0; c < CHATS; c++) {
        const ids = chatMessages(c).burst.map((event) => recordId(event.id, event.chatId))
        const records = (await journal.read('inbox', ids)).map((found) => found!.record)
        const arrival = [...records].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map((r) => r.id)
        const starts = lines.flatMap((line) =>
          'turn' in line && line.turn.at === 'start' && ids.includes(line.turn.id) && !fenced(line.turn) ? [line.turn] : [],
        )
        const ran = [...new Set(starts.sort((a, b) => a.t - b.t).map((run) => run.id))]
        // A run cut by the SIGKILL starts again later: order by each message's last start.
        const lastStart = ids
          .map((id) => [id, Math.max(...starts.filter((s) => s.id === id).map((s) => s.t))] as const)
          .sort((a, b) => a[1] - b[1])
          .map(([id]) => id)
        if (lastStart.join() !== arrival.join()) {
          problems.push(`c${c}: ran ${lastStart.join(' ')} (first starts ${ran.join(' ')}), arrived ${arrival.join(' ')}`)
          // What it takes to tell why: the burst's records, the chat's deliveries and its oracle lines.
          const journaled = records.map(({ id, createdAt, seq, after, attempts, fencingToken, updatedAt }) => ({
            id,
            createdAt,
            seq,
            after,
            attempts,
            fencingToken,
            updatedAt,
          }))
          console.log(`c${c} out of order: records ${JSON.stringify(journaled)}`)
          console.log(`c${c} deliveries ${JSON.stringify(deliveryLog.filter((d) => d.id.startsWith(`c${c}.`)))}`)
          console.log(`c${c} lines ${JSON.stringify(lines.filter((line) => JSON.stringify(line).includes(`c${c}`)))}`)
        }
      }
      const stale = Object.fromEntries([...metrics].map(([name, m]) => [name, m?.staleLeases ?? 'killed']))
      console.log(
        `${target.name}, ${REPLICAS} coordinated replicas, ${all.length} messages in ${CHATS} chats (round robin): ${counts.deliveries} deliveries (${counts.redeliveries} redelivered); ` +
          `overlaps ${overlapping.length} (fenced runs left out: ${fencedRuns.join(' ')}); reply problems ${JSON.stringify(problems)}; ambiguous ${ambiguous}; staleLeases ${JSON.stringify(stale)}; ` +
          `${FROZEN_IN} taken over with token ${takenOver.fencingToken}`,
      )
      expect(overlapping).toEqual([])
      expect(problems.filter((p) => ambiguous === 0 || !p.includes('0 times'))).toEqual([])
      expect(await killed.exited).toBe('SIGKILL')
      expect(metrics.get(frozen.name)!.staleLeases).toBeGreaterThanOrEqual(1)
      expect(completedBy(frozen.name, FROZEN_IN)).toBe(false)
      // Every fenced run was refused: its replica's writes of it failed their compare-and-set.
      for (const run of fencedRuns)
        expect(refusedTo(run.slice(run.lastIndexOf('@') + 1), run.slice(0, run.lastIndexOf('@'))), run).toBe(true)
    },
    180_000,
  )
})
