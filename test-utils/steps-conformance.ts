/**
 * The steps' conformance cases (src/core/durability/steps/journal-steps.ts): what every store's
 * admit, journal, settle and takeBack do, whatever language they are written in. Each case drives
 * the steps of a fresh scope directly, with a clock it sets, and reads the records back through the
 * scope's journal, as operators' verbs do.
 */
import { describe, expect, it } from 'vitest'
import type { Journal } from '../src/core/durability/journal/backend.js'
import type { InboxRecord, OutboxRecord } from '../src/core/durability/journal/records.js'
import type {
  AdmitOutcome,
  JournalOutcome,
  JournalSteps,
  Settle,
  SettleOutcome,
  StepClaim,
  StepUnavailable,
  TakenBack,
} from '../src/core/durability/steps/journal-steps.js'
import { leaseOf } from '../src/core/durability/steps/step-rules.js'
import { admitted } from './step-records.js'

export { admitted }

/** A fresh scope of the store under test: its steps and its journal. */
export interface StepsTarget {
  steps: JournalSteps
  journal: Journal
  /** Steps of the same scope as a newly started bot opens them. */
  reopen(): JournalSteps
}

const LEASE_MS = 1_000
const MAX_ATTEMPTS = 3
const claimAt = (now: number, incarnation = 'run-1', owner = 'bot-a'): StepClaim => ({ owner, incarnation, leaseMs: LEASE_MS, now })

/** The steps' answers as promises, for the cases (the engine takes them as callbacks). */
function promised(steps: JournalSteps) {
  const answer = <T>(call: (done: (outcome: T) => void) => void) => new Promise<T>((resolve) => call(resolve))
  return {
    admit: (record: InboxRecord, claim: StepClaim) => answer<AdmitOutcome>((done) => steps.admit(record, claim, done)),
    journal: (inbound: { id: string; token: number } | undefined, records: OutboxRecord[]) =>
      answer<JournalOutcome>((done) => steps.journal(inbound, records, done)),
    settle: (settle: Settle, claim: StepClaim) => answer<SettleOutcome>((done) => steps.settle(settle, claim, done)),
    takeBack: (claim: StepClaim, limit = 10, alone?: string) =>
      answer<readonly TakenBack[] | StepUnavailable>((done) => steps.takeBack(claim, { maxAttempts: MAX_ATTEMPTS, limit, alone }, done)),
  }
}

function reply(inbound: InboxRecord, ordinal: number, claim: StepClaim): OutboxRecord {
  return {
    key: `${inbound.id}:${ordinal}`,
    state: 'sending',
    chatId: inbound.chatId,
    payload: `re ${ordinal}`,
    fingerprint: null,
    keySource: 'derived',
    inboundId: inbound.id,
    ordinal,
    previousPart: null,
    nextPart: null,
    attempts: 0,
    nextAttemptAt: null,
    lease: leaseOf(claim, 1),
    fencingToken: 1,
    providerMessageId: null,
    lastError: null,
    createdAt: claim.now,
    updatedAt: claim.now,
  }
}

const done = { state: 'done' } as const

/** Runs the cases on the store `open` gives a fresh scope of. */
export function describeStepsConformance(name: string, open: () => StepsTarget): void {
  describe(`the steps on ${name}`, () => {
    const read = async (journal: Journal, id: string) => (await journal.read('inbox', [id]))[0]?.record

    it('admit: a chat with no unfinished message runs its message; the next one queues behind it, pending and uncharged; a redelivery is a duplicate', async () => {
      const { steps, journal } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000)
      const first = await s.admit(admitted('c1', 1, t0), t0)
      expect(first).toMatchObject({ type: 'run', record: { state: 'processing', attempts: 1, fencingToken: 1 } })
      const second = await s.admit(admitted('c1', 2, t0), t0)
      expect(second).toMatchObject({ type: 'queued', record: { state: 'pending', attempts: 0, fencingToken: 0, lease: null } })
      expect(await s.admit(admitted('c2', 1, t0), t0)).toMatchObject({ type: 'run' })
      const again = await s.admit(admitted('c1', 1, t0), t0)
      expect(again).toMatchObject({ type: 'duplicate', record: { id: 'mock:c1:1', state: 'processing' } })
      expect(await read(journal, 'mock:c1:2')).toMatchObject({ state: 'pending', attempts: 0 })
    })

    it('journal: a send is journaled once, a second journal of its key answers with its record, and a run whose token passed on is fenced', async () => {
      const { steps, journal } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000)
      const message = admitted('c1', 1, t0)
      await s.admit(message, t0)
      expect(await s.journal({ id: message.id, token: 1 }, [reply(message, 1, t0)])).toEqual({ type: 'journaled' })
      expect(await s.journal({ id: message.id, token: 1 }, [reply(message, 1, t0)])).toMatchObject({
        type: 'recorded',
        record: { key: `${message.id}:1`, state: 'sending' },
      })
      expect(await s.journal({ id: message.id, token: 2 }, [reply(message, 2, t0)])).toEqual({ type: 'fenced' })
      expect((await journal.read('outbox', [`${message.id}:2`]))[0]).toBeUndefined()
    })

    it("settle: the marks are written sent, the message done, and its chat's next message is claimed and handed over", async () => {
      const { steps, journal } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000)
      const [m1, m2] = [admitted('c1', 1, t0), admitted('c1', 2, t0)]
      await s.admit(m1, t0)
      await s.admit(m2, t0)
      await s.journal({ id: m1.id, token: 1 }, [reply(m1, 1, t0)])
      const t1 = claimAt(1_000_050)
      const settled = await s.settle({ inbound: { id: m1.id, token: 1, end: done }, marks: [{ key: `${m1.id}:1`, messageId: 'p1' }] }, t1)
      expect(settled).toMatchObject({ type: 'settled', next: { id: m2.id, state: 'processing', attempts: 1, fencingToken: 1 } })
      expect(await read(journal, m1.id)).toMatchObject({ state: 'done', lease: null })
      expect((await journal.read('outbox', [`${m1.id}:1`]))[0]?.record).toMatchObject({
        state: 'sent',
        providerMessageId: 'p1',
        attempts: 1,
      })
      expect(await read(journal, m2.id)).toMatchObject({ state: 'processing', lease: { owner: 'bot-a', expiresAt: 1_000_050 + LEASE_MS } })
    })

    it('takeBack: a lease that is over is taken with the next token, and the run it was taken from is fenced at its settle (its marks still written)', async () => {
      const { steps, journal } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000)
      const m1 = admitted('c1', 1, t0)
      await s.admit(m1, t0)
      await s.journal({ id: m1.id, token: 1 }, [reply(m1, 1, t0)])
      expect(await s.takeBack(claimAt(1_000_000 + LEASE_MS - 1, 'run-2', 'bot-b'))).toEqual([])
      const later = claimAt(1_000_000 + LEASE_MS, 'run-2', 'bot-b')
      expect(await s.takeBack(later)).toMatchObject([{ dead: false, record: { id: m1.id, attempts: 2, fencingToken: 2 } }])
      const late = await s.settle({ inbound: { id: m1.id, token: 1, end: done }, marks: [{ key: `${m1.id}:1`, messageId: 'p1' }] }, t0)
      expect(late).toEqual({ type: 'fenced' })
      expect(await read(journal, m1.id)).toMatchObject({ state: 'processing', fencingToken: 2, lease: { owner: 'bot-b' } })
      expect((await journal.read('outbox', [`${m1.id}:1`]))[0]?.record.state).toBe('sent')
    })

    it("takeBack: a restarted owner takes back at once what its earlier run left; only a chat's head is ever taken", async () => {
      const { steps } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000, 'run-1')
      await s.admit(admitted('c1', 1, t0), t0)
      await s.admit(admitted('c1', 2, t0), t0)
      const restarted = claimAt(1_000_001, 'run-2')
      const taken = await s.takeBack(restarted)
      expect(taken).toMatchObject([{ dead: false, record: { id: 'mock:c1:1', fencingToken: 2, lease: { incarnation: 'run-2' } } }])
      expect(await s.takeBack(claimAt(1_000_002, 'run-2'))).toEqual([])
    })

    it("a failed run keeps its chat's head until its retry is due; a head whose runs were spent is dead-lettered and its chat goes on", async () => {
      const { steps, journal } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000)
      const [m1, m2] = [admitted('c1', 1, t0), admitted('c1', 2, t0)]
      await s.admit(m1, t0)
      await s.admit(m2, t0)
      let token = 1
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const error = { message: `failure ${attempt}`, at: t0.now }
        const retryAt = 1_000_000 + attempt * 100
        const settled = await s.settle({ inbound: { id: m1.id, token, end: { state: 'failed', error, retryAt } }, marks: [] }, t0)
        expect(settled).toEqual({ type: 'settled', next: undefined })
        expect(await s.takeBack(claimAt(retryAt - 1))).toEqual([])
        const taken = await s.takeBack(claimAt(retryAt))
        if (attempt < MAX_ATTEMPTS) {
          expect(taken).toMatchObject([{ dead: false, record: { id: m1.id, attempts: attempt + 1 } }])
          token++
        } else {
          expect(taken).toMatchObject([
            { dead: true, record: { id: m1.id, state: 'dead', lastError: { message: `failure ${attempt}` } } },
            { dead: false, record: { id: m2.id, state: 'processing', attempts: 1 } },
          ])
        }
      }
      expect(await read(journal, m1.id)).toMatchObject({ state: 'dead', attempts: MAX_ATTEMPTS })
    })

    it('a last run after a run that never ended waits for an alone pass, which claims that message alone; a failed message takes its last run in any pass', async () => {
      const { steps, journal } = open()
      const s = promised(steps)
      const run1 = claimAt(1_000_000, 'run-1')
      const [c1, c3] = [admitted('c1', 1, run1), admitted('c3', 1, run1)]
      await s.admit(c1, run1)
      await s.admit(c3, run1)
      // c3's handler fails twice: its next run, due between run-2 and run-3, is its last, after runs that ended.
      for (const token of [1, 2]) {
        const error = { message: `failure ${token}`, at: run1.now }
        await s.settle(
          { inbound: { id: c3.id, token, end: { state: 'failed', error, retryAt: token === 1 ? run1.now + 1 : 1_000_015 } }, marks: [] },
          run1,
        )
        if (token === 1) expect(await s.takeBack(claimAt(run1.now + 1, 'run-1'))).toMatchObject([{ record: { id: c3.id, attempts: 2 } }])
      }
      // The process dies with c1 running, twice: run-2 takes it back (its second run), then dies too.
      const run2 = claimAt(1_000_010, 'run-2')
      expect(await s.takeBack(run2)).toMatchObject([{ dead: false, record: { id: c1.id, attempts: 2 } }])
      const c2 = admitted('c2', 1, run2)
      await s.admit(c2, run2)
      const run3 = claimAt(1_000_020, 'run-3')
      expect(await s.takeBack(run3, 10, c2.id)).toEqual([])
      expect(await s.takeBack(run3, 10, c1.id)).toMatchObject([{ dead: false, record: { id: c1.id, attempts: 3, fencingToken: 3 } }])
      expect(await read(journal, c2.id)).toMatchObject({ state: 'processing', attempts: 1, lease: { incarnation: 'run-2' } })
      expect(await read(journal, c3.id)).toMatchObject({ state: 'failed', attempts: 2 })
      expect(await s.takeBack(run3, 10, c1.id)).toEqual([])
      const taken = (await s.takeBack(run3)) as readonly TakenBack[]
      expect([...taken].sort((a, b) => a.record.id.localeCompare(b.record.id))).toMatchObject([
        { dead: false, record: { id: c2.id, attempts: 2, lease: { incarnation: 'run-3' } } },
        { dead: false, record: { id: c3.id, attempts: 3, state: 'processing' } },
      ])
      // The next run of the restarted owner: c1's run under run-3 never ended, and it had its last run.
      const run4 = claimAt(1_000_030, 'run-4')
      const left = (await s.takeBack(run4)) as readonly TakenBack[]
      expect(left.find((found) => found.record.id === c1.id)).toMatchObject({ dead: true, record: { state: 'dead', attempts: 3 } })
      // A pass that is not alone leaves such a message as it is: c2's next run is its last.
      expect(left.find((found) => found.record.id === c2.id)).toEqual({
        dead: false,
        waitsAlone: true,
        record: await read(journal, c2.id),
      })
    })

    it("a message an operator made pending again runs after its chat's unfinished messages, and a bot opening the journal anew finds each chat in its order", async () => {
      const { steps, journal, reopen } = open()
      const s = promised(steps)
      const t0 = claimAt(1_000_000)
      const [m1, m2, m3] = [admitted('c1', 1, t0), admitted('c1', 2, t0), admitted('c1', 3, t0)]
      for (const m of [m1, m2, m3]) await s.admit(m, t0)
      await s.settle({ inbound: { id: m1.id, token: 1, end: done }, marks: [] }, t0)
      // The operator's replay of the done m1 (as bot.durability.replay writes it).
      const [found] = await journal.read('inbox', [m1.id])
      const replayed = { ...found!.record, state: 'pending' as const, seq: 1_000_010 * 1000, updatedAt: 1_000_010 }
      await journal.write('operator.replay', [{ kind: 'inbox', record: replayed, expectVersion: found!.version }])
      const fresh = promised(reopen())
      // A new bot (another run of the owner): m2 was handed over to the dead run, m3 waits behind it, m1 behind both.
      const restarted = claimAt(1_000_020, 'run-2')
      expect(await fresh.takeBack(restarted)).toMatchObject([{ record: { id: m2.id } }])
      const after2 = await fresh.settle({ inbound: { id: m2.id, token: 2, end: done }, marks: [] }, restarted)
      expect(after2).toMatchObject({ type: 'settled', next: { id: m3.id } })
      const after3 = await fresh.settle({ inbound: { id: m3.id, token: 1, end: done }, marks: [] }, restarted)
      expect(after3).toMatchObject({ type: 'settled', next: { id: m1.id, state: 'processing' } })
    })
  })
}
