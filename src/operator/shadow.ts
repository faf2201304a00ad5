/**
 * `botmesh shadow`: loads the bot module, picks the messages (recorded states, ids, or the messages
 * of dead sends) and runs them through the module's code with `shadowReplay`, reading the backend
 * and the bot's store only. Returns the report; prints nothing.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { openStoreOf } from './gateway/store.js'
import type { Journal } from '../core/durability/journal/backend.js'
import type { InboxState } from '../core/durability/journal/records.js'
import { shadowReplay, SHADOW_LIMITS, type DefineBot, type ShadowReport } from '../testing/shadow/index.js'
import { UsageError } from './errors.js'
import type { ScopedSession } from './session.js'

/** What to replay and how to report progress. */
export interface ShadowRequest {
  /** The module whose default export defines the bot. */
  define: DefineBot
  chatId?: string
  since?: number
  states?: InboxState[]
  limit?: number
  ids?: string[]
  /** Replay the messages whose sends are dead (instead of `states`). */
  deadSends?: boolean
  onProgress?: (done: number, total: number) => void
}

/** Imports `module` and returns its default export, the function that defines the bot. */
export async function loadBotModule(module: string): Promise<DefineBot> {
  let loaded: { default?: unknown }
  try {
    loaded = (await import(pathToFileURL(resolve(module)).href)) as { default?: unknown }
  } catch (error) {
    throw new UsageError(`cannot load the bot module ${module}: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof loaded.default !== 'function')
    throw new UsageError(
      `${module} has no default export that is a function; export default (bot) => { bot.when(…) }, the function you call before bot.start()`,
    )
  return loaded.default as DefineBot
}

/** Runs the request on the session's backend and scope, with the store its file holds (SQLite). */
export async function shadowRun(session: ScopedSession, request: ShadowRequest): Promise<ShadowReport> {
  const ids = request.deadSends ? await deadSendMessages(session.journal) : request.ids
  if (request.deadSends && ids!.length === 0) return { summary: { messages: 0, same: 0, changed: 0, failed: 0 }, messages: [] }
  const opened = await openStoreOf(session.opened.target)
  try {
    return await shadowReplay({
      backend: session.backend,
      scope: session.scope,
      define: request.define,
      ...(opened && { store: opened.store }),
      ...(request.chatId !== undefined && { chatId: request.chatId }),
      ...(request.since !== undefined && { since: request.since }),
      ...(request.states !== undefined && { states: request.states }),
      ...(request.limit !== undefined && { limit: request.limit }),
      ...(ids !== undefined && { ids }),
      ...(request.onProgress && { onProgress: request.onProgress }),
    })
  } finally {
    await opened?.close()
  }
}

/** The inbound records whose handlers made the dead sends (each once), up to the messages a run takes. */
async function deadSendMessages(journal: Journal): Promise<string[]> {
  const ids = new Set<string>()
  let after: { stateTime: number; key: string } | undefined
  for (let read = 0; read < SHADOW_LIMITS.scanMax && ids.size < SHADOW_LIMITS.messagesMax; read += SHADOW_LIMITS.pageSize) {
    const page = await journal.list('outbox', { state: 'dead', ...(after && { after }), limit: SHADOW_LIMITS.pageSize })
    for (const { record } of page) if (record.inboundId !== null) ids.add(record.inboundId)
    if (page.length < SHADOW_LIMITS.pageSize) break
    const last = page[page.length - 1]!.record
    after = { stateTime: last.updatedAt, key: last.key }
  }
  // A dead send may outlive its message (retention purged the inbound record): only messages still journaled run.
  const named = [...ids]
  const kept: string[] = []
  for (let first = 0; first < named.length; first += SHADOW_LIMITS.pageSize) {
    const found = await journal.read('inbox', named.slice(first, first + SHADOW_LIMITS.pageSize))
    for (const entry of found) if (entry) kept.push(entry.record.id)
  }
  return kept
}
