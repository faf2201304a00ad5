/**
 * The steps (steps/journal-steps.ts) on the memory backend: each one a synchronous change of the
 * journal's state, answered before it returns, with no promise. Records are the journal's own, kept
 * in the same state `MemoryKv` serves, so operators' verbs read what the steps wrote. Each chat's
 * unfinished messages, in order, are kept beside them (`ChatLists`): rebuilt from the records the
 * first time a scope is used, so a bot started on a journal another one left takes its chats up in
 * their order.
 */
import { toOp } from '../journal/kv-durability.js'
import type { JournalWrite } from '../journal/backend.js'
import type { InboxRecord, OutboxRecord } from '../journal/records.js'
import type {
  AdmitOutcome,
  JournalOutcome,
  JournalSteps,
  Settle,
  SettleOutcome,
  StepClaim,
  StepUnavailable,
  TakeBackPass,
  TakenBack,
} from '../steps/journal-steps.js'
import { JournalUnavailableError } from '../../errors/errors.js'
import {
  chatOrder,
  claimedRecord,
  endedRecord,
  isFenced,
  isFree,
  isLastRunAlone,
  queuedRecord,
  sentOutboxRecord,
  spentRecord,
  UNFINISHED_STATES,
} from '../steps/step-rules.js'
import { runsSpent } from '../leases/charged-runs.js'
import type { KvState } from './kv-state.js'

/** Each chat's unfinished messages of one scope, head first. */
type ChatLists = Map<string, string[]>

/** The chat lists of every scope of a state: shared by every bot the state serves. */
const listsOfStates = new WeakMap<KvState, Map<string, ChatLists>>()

export class MemorySteps implements JournalSteps {
  readonly #chats: ChatLists

  constructor(
    private readonly state: KvState,
    private readonly scope: string,
  ) {
    let scopes = listsOfStates.get(state)
    if (!scopes) listsOfStates.set(state, (scopes = new Map()))
    let chats = scopes.get(scope)
    if (!chats) scopes.set(scope, (chats = this.#rebuild()))
    this.#chats = chats
  }

  admit(record: InboxRecord, claim: StepClaim, done: (outcome: AdmitOutcome) => void): void {
    done(answered(() => this.#admit(record)))
  }

  journal(
    inbound: { id: string; token: number } | undefined,
    records: readonly OutboxRecord[],
    done: (outcome: JournalOutcome) => void,
  ): void {
    done(answered(() => this.#journal(inbound, records)))
  }

  settle(settle: Settle, claim: StepClaim, done: (outcome: SettleOutcome) => void): void {
    done(answered(() => this.#settle(settle, claim)))
  }

  takeBack(claim: StepClaim, pass: TakeBackPass, done: (taken: readonly TakenBack[] | StepUnavailable) => void): void {
    done(answered(() => this.#takeBack(claim, pass)))
  }

  #admit(record: InboxRecord): AdmitOutcome {
    const found = this.#inbox(record.id)
    if (found) return { type: 'duplicate', record: found }
    const list = this.#list(record.chatId)
    const admitted = this.#headOf(list) === undefined ? record : queuedRecord(record)
    this.#write({ kind: 'inbox', record: admitted, expectVersion: 0 })
    list.push(record.id)
    return { type: admitted === record ? 'run' : 'queued', record: admitted }
  }

  #journal(inbound: { id: string; token: number } | undefined, records: readonly OutboxRecord[]): JournalOutcome {
    if (inbound && isFenced(this.#inbox(inbound.id), inbound.token)) return { type: 'fenced' }
    const found = this.#outbox(records[0]!.key)
    if (found) return { type: 'recorded', record: found }
    for (const record of records) if (!this.#outbox(record.key)) this.#write({ kind: 'outbox', record, expectVersion: 0 })
    return { type: 'journaled' }
  }

  #settle(settle: Settle, claim: StepClaim): SettleOutcome {
    // The channel took these sends, whatever the fence says of the message.
    for (const mark of settle.marks) {
      const found = this.#entry('outbox', mark.key)
      const record = found?.value as unknown as OutboxRecord | undefined
      if (record && record.state !== 'sent')
        this.#write({ kind: 'outbox', record: sentOutboxRecord(record, mark.messageId, claim.now), expectVersion: found!.version })
    }
    const inbound = settle.inbound
    if (!inbound) return { type: 'settled', next: undefined }
    const found = this.#entry('inbox', inbound.id)
    const record = found?.value as unknown as InboxRecord | undefined
    if (!record || isFenced(record, inbound.token)) return { type: 'fenced' }
    this.#write({ kind: 'inbox', record: endedRecord(record, inbound.end, claim.now), expectVersion: found!.version })
    if (inbound.end.state === 'failed') return { type: 'settled', next: undefined }
    const list = this.#list(record.chatId)
    list.splice(list.indexOf(inbound.id), 1)
    const head = this.#headOf(list)
    return { type: 'settled', next: head && head.state === 'pending' ? this.#claim(head, claim) : undefined }
  }

  #takeBack(claim: StepClaim, pass: TakeBackPass): readonly TakenBack[] {
    if (pass.alone !== undefined) {
      // A processing message is its chat's head: only the head runs.
      const record = this.#inbox(pass.alone)
      const waits = record && isFree(record, claim) && isLastRunAlone(record, pass.maxAttempts)
      return waits ? [{ record: this.#claim(record, claim), dead: false }] : []
    }
    const taken: TakenBack[] = []
    for (const [chatId, list] of this.#chats) {
      if (taken.length >= pass.limit) break
      for (let head = this.#headOf(list); head && isFree(head, claim); head = this.#headOf(list)) {
        if (isLastRunAlone(head, pass.maxAttempts)) {
          taken.push({ record: head, dead: false, waitsAlone: true })
          break
        }
        if (!runsSpent(head.attempts, pass.maxAttempts)) {
          taken.push({ record: this.#claim(head, claim), dead: false })
          break
        }
        // Its runs were spent: dead-lettered, and its chat goes on with the next message.
        const dead = spentRecord(head, claim.now)
        this.#write({ kind: 'inbox', record: dead, expectVersion: this.#entry('inbox', head.id)!.version })
        list.shift()
        taken.push({ record: dead, dead: true })
      }
      if (list.length === 0) this.#chats.delete(chatId)
    }
    this.#adoptReplayed(claim, pass.limit - taken.length)
    return taken
  }

  /**
   * Messages an operator made pending again (a replay of a dead or done message) join the end of
   * their chat: they run when the operator asked, not in their original place.
   */
  #adoptReplayed(claim: StepClaim, limit: number): void {
    if (limit <= 0) return
    for (const entry of this.state.due(this.scope, 'inbox', claim.now, limit)) {
      const record = entry.value as unknown as InboxRecord
      const list = this.#list(record.chatId)
      if (!list.includes(record.id)) list.push(record.id)
    }
  }

  /** The first unfinished message of a chat, its finished ones (an operator's discard) dropped on the way. */
  #headOf(list: string[]): InboxRecord | undefined {
    while (list.length > 0) {
      const head = this.#inbox(list[0]!)
      if (head && UNFINISHED_STATES.has(head.state)) return head
      list.shift()
    }
    return undefined
  }

  #claim(record: InboxRecord, claim: StepClaim): InboxRecord {
    const claimed = claimedRecord(record, claim)
    this.#write({ kind: 'inbox', record: claimed, expectVersion: this.#entry('inbox', record.id)!.version })
    return claimed
  }

  #list(chatId: string): string[] {
    let list = this.#chats.get(chatId)
    if (!list) this.#chats.set(chatId, (list = []))
    return list
  }

  /** Each chat's unfinished messages in their order, as the records say. */
  #rebuild(): ChatLists {
    const unfinished: InboxRecord[] = []
    for (const state of UNFINISHED_STATES)
      for (const entry of this.state.list(this.scope, 'inbox', { state, limit: Number.MAX_SAFE_INTEGER }))
        unfinished.push(entry.value as unknown as InboxRecord)
    const chats: ChatLists = new Map()
    for (const record of unfinished.sort(chatOrder)) {
      const list = chats.get(record.chatId)
      if (list) list.push(record.id)
      else chats.set(record.chatId, [record.id])
    }
    return chats
  }

  #inbox(id: string): InboxRecord | undefined {
    return this.#entry('inbox', id)?.value as unknown as InboxRecord | undefined
  }

  #outbox(key: string): OutboxRecord | undefined {
    return this.#entry('outbox', key)?.value as unknown as OutboxRecord | undefined
  }

  #entry(collection: 'inbox' | 'outbox', key: string) {
    return this.state.own(this.scope, collection, key)
  }

  /**
   * One compare-and-set; the steps read the version they write against in the same turn, so it holds.
   * The records are the steps' own (built fresh by step-rules.ts), so they are not frozen here: a reader
   * of the state gets them frozen (kv-state.ts), and a replay's handler its event (steps-run.ts).
   */
  #write(write: JournalWrite): void {
    const result = this.state.applyOwn(this.scope, toOp(write))
    if (!result.ok) throw new JournalUnavailableError(`a write of ${write.kind} lost its compare-and-set within its own step`)
  }
}

/** A step's outcome, or the store's failure as `unavailable` (the step then wrote nothing it could vouch for). */
function answered<T>(step: () => T): T | StepUnavailable {
  try {
    return step()
  } catch (error) {
    return { type: 'unavailable', error }
  }
}
