/**
 * `shadowReplay(options)`: runs recorded inbound messages through new code and compares what it
 * would send with what the journal recorded, sending nothing and writing nothing. The backend is
 * only read; the conversation state reads the store as it is now and keeps its writes in memory.
 */
import type { DurabilityBackend, Journal } from '../../core/durability/journal/backend.js'
import type { InboxRecord, InboxState } from '../../core/durability/journal/records.js'
import { BotmeshError, ConfigError } from '../../core/errors/errors.js'
import { MemoryStore, type Store } from '../../core/store/store.js'
import { SHADOW_LIMITS } from './limits.js'
import { recordedSends } from './recorded-sends.js'
import type { RecordedSend } from './recording-provider.js'
import { describeShape, sameSends, shapeOf } from './send-shape.js'
import { selectInbound } from './selection.js'
import { ShadowBot, type DefineBot } from './shadow-bot.js'

/** What `shadowReplay` takes. */
export interface ShadowReplayOptions {
  /** The journal to read (never written): `store.durability()`, `FileDurability.open(…)`, … Started and stopped here. */
  backend: DurabilityBackend
  /** Registers the new code's handlers on a fresh bot: the function a deployment calls before `bot.start()`. */
  define: DefineBot
  /** The bot's store, read as it is now (user data, flow checkpoints); never written. Started here if it needs to be; stopping it is yours. @default an empty MemoryStore */
  store?: Store
  /** The scope (bot namespace) to read, as `botmesh scopes` lists it. @default the backend's only scope */
  scope?: string
  /** Only this chat's messages. */
  chatId?: string
  /** Only messages admitted at or after this time (a Date or ms since the epoch). */
  since?: number | Date
  /** The inbound states to replay. @default ['done'] (with `ids`: every state) */
  states?: readonly InboxState[]
  /** At most this many messages, the most recent ones. @default SHADOW_LIMITS.messagesDefault */
  limit?: number
  /** Only these inbound records. */
  ids?: readonly string[]
  /** Called after each message with how many ran and how many will. */
  onProgress?: (done: number, total: number) => void
}

/** How one message fared under the new code. */
export type ShadowOutcome = 'same' | 'changed' | 'failed'

/** One replayed message. */
export interface ShadowMessage {
  /** The inbound record id. */
  id: string
  /** Its chat. */
  chatId: string
  /** `same` (the same sends), `changed` (other sends) or `failed` (the new code threw). */
  outcome: ShadowOutcome
  /** The sends the journal recorded for it, one line each. */
  recorded: string[]
  /** The sends the new code made, one line each. */
  shadow: string[]
  /** What the new code threw, when it failed. */
  error?: ShadowError
}

/** How many messages ran, and how many of each outcome. */
export interface ShadowSummary {
  /** Messages replayed. */
  messages: number
  /** Those whose new sends are the recorded ones. */
  same: number
  /** Those whose new sends differ. */
  changed: number
  /** Those whose new code threw. */
  failed: number
}

/** What the new code threw, as the report keeps it. */
export interface ShadowError {
  /** The error's message. */
  message: string
  /** Its stable code, when it had one. */
  code?: string
  /** Its class name. */
  name?: string
}

/** What a shadow run found. */
export interface ShadowReport {
  /** How many messages ran, and how many of each outcome. */
  summary: ShadowSummary
  /** Every message, in the order it ran. */
  messages: ShadowMessage[]
}

/** Replays recorded messages through `define`'s code and reports, message by message, whether it would send the same. */
export async function shadowReplay(options: ShadowReplayOptions): Promise<ShadowReport> {
  const limit = limitOf(options.limit)
  const { backend } = options
  await backend.start()
  try {
    const scope = options.scope ?? (await onlyScope(backend))
    const journal = backend.journal(scope)
    const since = options.since instanceof Date ? options.since.getTime() : options.since
    const records = await selectInbound(journal, {
      limit,
      ...(options.chatId !== undefined && { chatId: options.chatId }),
      ...(since !== undefined && { since }),
      ...(options.states !== undefined && { states: options.states }),
      ...(options.ids !== undefined && { ids: options.ids }),
    })
    return reportOf(await runAll(journal, scope, records, options))
  } finally {
    await backend.stop()
  }
}

async function runAll(journal: Journal, scope: string, records: InboxRecord[], options: ShadowReplayOptions): Promise<ShadowMessage[]> {
  if (records.length === 0) return []
  const store = options.store ?? new MemoryStore()
  const bot = await ShadowBot.start({ scope, providerName: records[0]!.provider, store, define: options.define })
  const messages: ShadowMessage[] = []
  try {
    for (const record of records) {
      const run = await bot.run(record)
      const recorded = await recordedSends(journal, record.id)
      messages.push(compared(record, recorded, run.sends, run.error))
      options.onProgress?.(messages.length, records.length)
    }
  } finally {
    await bot.stop()
  }
  return messages
}

function compared(record: InboxRecord, recorded: RecordedSend[], shadow: RecordedSend[], error: unknown): ShadowMessage {
  const lines = (sends: RecordedSend[]) =>
    sends.map((send) => `${send.chatId === record.chatId ? '' : `(to ${send.chatId}) `}${describeShape(shapeOf(send.content))}`)
  const shapes = (sends: RecordedSend[]) => sends.map((send) => ({ chatId: send.chatId, ...shapeOf(send.content) }))
  const same = sameSends(shapes(recorded), shapes(shadow)) && recorded.every((send, n) => send.chatId === shadow[n]!.chatId)
  const outcome: ShadowOutcome = error !== undefined ? 'failed' : same ? 'same' : 'changed'
  return {
    id: record.id,
    chatId: record.chatId,
    outcome,
    recorded: lines(recorded),
    shadow: lines(shadow),
    ...(error !== undefined && { error: errorOf(error) }),
  }
}

function reportOf(messages: ShadowMessage[]): ShadowReport {
  const count = (outcome: ShadowOutcome) => messages.filter((message) => message.outcome === outcome).length
  return { summary: { messages: messages.length, same: count('same'), changed: count('changed'), failed: count('failed') }, messages }
}

function errorOf(error: unknown): ShadowError {
  if (!(error instanceof Error)) return { message: String(error) }
  const code = error instanceof BotmeshError ? error.code : (error as { code?: unknown }).code
  return { message: error.message, ...(typeof code === 'string' && { code }), name: error.name }
}

function limitOf(limit: number | undefined): number {
  if (limit === undefined) return SHADOW_LIMITS.messagesDefault
  if (!Number.isInteger(limit) || limit < 1 || limit > SHADOW_LIMITS.messagesMax)
    throw new ConfigError(`shadowReplay: limit must be a whole number from 1 to ${SHADOW_LIMITS.messagesMax}, got ${limit}`)
  return limit
}

/** The scope a backend holds, when it holds one; an empty backend has nothing to replay. */
async function onlyScope(backend: DurabilityBackend): Promise<string> {
  const scopes = await backend.scopes()
  if (scopes.length <= 1) return scopes[0] ?? 'default/default/bot/default'
  throw new ConfigError(`shadowReplay: the backend holds ${scopes.length} scopes; pass scope, one of ${scopes.sort().join(', ')}`)
}
