/**
 * Flows: a conversation of questions (`ask`) and answers. A chat with a flow waiting for an answer
 * gets the answer. A `.persistent()` flow keeps its checkpoint in the store, so it resumes after a
 * restart without repeating the pending question; a plain flow lives in this process's memory.
 */
import type { Json } from '../durability/journal/kv.js'
import type { OutboundContent } from '../provider/provider.js'
import type { Context, Message } from './context.js'
import { LIMITS } from '../durability/limits.js'
import { SendDeferredError } from '../errors/errors.js'

/** Handles the answer to a question. */
export type AnswerHandler = (ctx: Context, answer: Message) => unknown | Promise<unknown>

/** One question of a flow and the handler of its answer. */
export interface FlowStep {
  /** What the bot asks. */
  question: OutboundContent
  /** Handles the chat's answer. */
  handle: AnswerHandler
}

/** A named sequence of questions. */
export class Flow {
  /** Its questions, in order. */
  readonly steps: FlowStep[] = []
  #persistent = false

  /** The flow's name: a chat's checkpoint names the flow it waits in. */
  readonly name: string

  constructor(name: string) {
    this.name = name
  }

  /** Asks `question`; the chat's next message is its answer. */
  ask(question: OutboundContent, handle: AnswerHandler = () => {}): this {
    this.steps.push({ question, handle })
    return this
  }

  /** Keeps the flow's checkpoints in the store, so it survives a restart. */
  persistent(): this {
    this.#persistent = true
    return this
  }

  /** Whether the flow's checkpoint is kept in the store, so it survives a restart. */
  get isPersistent(): boolean {
    return this.#persistent
  }
}

/**
 * Asks a flow's question. A send rejected with `SendDeferredError` is journaled and goes out later
 * (the sweeper retries it; on a standby of a leader-only transport session, the leader delivers it):
 * the question is asked all the same, so the flow waits for its answer and its checkpoint is written.
 * Any other failure is the step's.
 */
export async function askQuestion(ctx: Context, question: OutboundContent): Promise<void> {
  try {
    await ctx.reply(question)
  } catch (error) {
    if (!(error instanceof SendDeferredError)) throw error
  }
}

/** Starts the definition of a flow. */
export function flow(name: string): Flow {
  return new Flow(name)
}

/**
 * Where a chat's flow stands. `fedBy` is the inbound record that produced this checkpoint and
 * `previous` the checkpoint before it: a replay of that same record starts again from `previous`,
 * so the step runs again (its sends answered from the outbox) instead of taking the message as the
 * answer to the next question.
 */
export interface Conversation {
  flow: string
  step: number
  state: Record<string, Json>
  finished: boolean
  fedBy: string | null
  previous: Omit<Conversation, 'previous' | 'fed'> | null
  /**
   * The messages that fed this chat's conversations lately (`step` -1: the one that started a flow),
   * at most LIMITS.conversationFedMax. An operator's replay of one of them, other than the latest,
   * feeds nothing: it must not be taken as the answer to the question asked now.
   */
  fed?: FedRecord[]
}

/** A message that fed a conversation. */
export interface FedRecord {
  id: string
  flow: string
  step: number
}

/** The conversation that a message `recordId` should see. */
export function conversationFor(stored: Conversation | undefined, recordId: string): Omit<Conversation, 'previous'> | undefined {
  if (!stored) return undefined
  const current = stored.fedBy === recordId ? (stored.previous ?? undefined) : stored
  return current && !current.finished ? current : undefined
}

/** Whether `recordId` fed an earlier step than the checkpoint's latest one (a replay of the latest runs its step again). */
export function feedOf(stored: Conversation | undefined, recordId: string): FedRecord | undefined {
  if (!stored || stored.fedBy === recordId) return undefined
  return stored.fed?.find((entry) => entry.id === recordId)
}

/** `fed` with `entry` appended last (once), bounded by LIMITS.conversationFedMax. */
export function withFed(fed: readonly FedRecord[] | undefined, entry: FedRecord): FedRecord[] {
  const kept = (fed ?? []).filter((each) => each.id !== entry.id)
  kept.push(entry)
  return kept.slice(-LIMITS.conversationFedMax)
}
