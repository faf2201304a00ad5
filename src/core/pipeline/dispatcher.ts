/**
 * Routing and running: which handler (or waiting flow) takes an inbound message, and running it
 * with its context. The same in both pipelines; a context's sends go to the pipeline's sender.
 */
import type { Json } from '../durability/journal/kv.js'
import { askQuestion, conversationFor, feedOf, Flow, withFed, type Conversation, type FedRecord } from '../bot/flow.js'
import type { Context, Message, StateAccess } from '../bot/context.js'
import { bindMediaProvider } from '../provider/media.js'
import type { InboundEvent } from '../provider/provider.js'
import type { BotParts, Handler, Sender } from './pipeline.js'
import type { SendOrigin } from '../durability/port.js'

/** What a message will do, decided before any handler runs (reading the store may fail). */
export type Route =
  | { type: 'answer'; flow: Flow; conversation: Omit<Conversation, 'previous'>; stored: Conversation | undefined }
  | { type: 'handler'; handler: Handler | Flow; stored: Conversation | undefined }
  /** A replay of a message that already fed an earlier step: it feeds nothing again. */
  | { type: 'fed-before'; note: string }
  | { type: 'none' }

/**
 * What running a route left undone. `unrecorded`: the conversation's checkpoint could not be
 * written, so the message must not be acknowledged (the next message would answer the wrong step).
 */
export interface RunOutcome {
  unrecorded?: unknown
}

/** A conversation to write once its step ran. */
interface Checkpoint {
  flow: Flow
  conversation: Conversation
}

export class Dispatcher {
  /** Conversations of flows that are not persistent: they live (and die) with this process. */
  readonly #memory = new Map<string, Conversation>()

  constructor(
    private readonly parts: BotParts,
    private readonly sender: Sender,
  ) {}

  async route(event: InboundEvent, recordId: string): Promise<Route> {
    const stored =
      this.#memory.get(event.chatId) ?? ((await this.parts.store.getCheckpoint(this.parts.scope, event.chatId)) as Conversation | undefined)
    const fed = feedOf(stored, recordId)
    if (fed) return { type: 'fed-before', note: fedBeforeNote(fed) }
    const conversation = conversationFor(stored, recordId)
    const flow = conversation && this.parts.flows.get(conversation.flow)
    if (conversation && flow && flow.steps[conversation.step]) return { type: 'answer', flow, conversation, stored }
    const registration = this.parts.registrations.find((r) => r.matcher(event))
    return registration ? { type: 'handler', handler: registration.handler, stored } : { type: 'none' }
  }

  /** Routes a message that arrived just now, then writes it to the message log (once it could be routed). */
  async routeArrival(event: InboundEvent, recordId: string): Promise<Route> {
    const route = await this.route(event, recordId)
    await this.parts.store.appendLog(this.parts.scope, {
      direction: 'in',
      chatId: event.chatId,
      messageId: event.id,
      text: event.text ?? null,
      at: Date.now(),
      ref: recordId,
    })
    return route
  }

  /** Routes, logs and runs a message no journal holds (a bot without durability, or failOpen). */
  async handleUnjournaled(event: InboundEvent): Promise<void> {
    const route = await this.routeArrival(event, event.id)
    const { unrecorded } = await this.run(route, event, event.id)
    if (unrecorded !== undefined) this.parts.error(unrecorded)
  }

  /**
   * Runs a route. A handler that throws is reported, not retried: its side effects already ran. A
   * checkpoint that could not be written is not the handler's failure: it comes back as `unrecorded`.
   */
  async run(route: Route, event: InboundEvent, recordId: string, origin?: SendOrigin): Promise<RunOutcome> {
    if (route.type === 'none' || route.type === 'fed-before') return {}
    const flowState = route.type === 'answer' ? { ...route.conversation.state } : {}
    const ctx = this.#context(event, recordId, flowState, origin)
    let checkpoint: Checkpoint | undefined
    try {
      if (route.type === 'answer') checkpoint = await this.#answer(route, ctx, flowState, recordId)
      else if (route.handler instanceof Flow) checkpoint = await this.#startFlow(route.handler, route.stored, ctx, recordId)
      else await route.handler(ctx)
    } catch (error) {
      this.parts.error(error)
      return {}
    }
    if (!checkpoint) return {}
    try {
      await this.#save(checkpoint, ctx.chatId)
    } catch (error) {
      return { unrecorded: error }
    }
    return {}
  }

  async #startFlow(flow: Flow, stored: Conversation | undefined, ctx: Context, recordId: string): Promise<Checkpoint | undefined> {
    const first = flow.steps[0]
    if (!first) return undefined
    await askQuestion(ctx, first.question)
    const conversation = {
      flow: flow.name,
      step: 0,
      state: {},
      finished: false,
      fedBy: recordId,
      previous: strip(priorOf(stored, recordId)),
    }
    return { flow, conversation: { ...conversation, fed: withFed(stored?.fed, { id: recordId, flow: flow.name, step: -1 }) } }
  }

  async #answer(
    route: Extract<Route, { type: 'answer' }>,
    ctx: Context,
    state: Record<string, Json>,
    recordId: string,
  ): Promise<Checkpoint> {
    const { flow, conversation, stored } = route
    await flow.steps[conversation.step]!.handle(ctx, ctx.message)
    const next = conversation.step + 1
    const following = flow.steps[next]
    if (following) await askQuestion(ctx, following.question)
    return {
      flow,
      conversation: {
        flow: flow.name,
        step: following ? next : conversation.step,
        state,
        finished: !following,
        fedBy: recordId,
        previous: strip(conversation),
        fed: withFed(stored?.fed, { id: recordId, flow: flow.name, step: conversation.step }),
      },
    }
  }

  async #save({ flow, conversation }: Checkpoint, chatId: string): Promise<void> {
    if (flow.isPersistent) await this.parts.store.setCheckpoint(this.parts.scope, chatId, conversation as unknown as Json)
    else this.#memory.set(chatId, conversation)
  }

  #context(event: InboundEvent, recordId: string, flowState: Record<string, Json>, origin: SendOrigin | undefined): Context {
    const { store, scope } = this.parts
    const message: Message = { ...event, kind: event.kind ?? (event.interaction ? 'interaction' : 'message') }
    const user: StateAccess = {
      get: async (key) => (await store.getUser(scope, event.chatId, key)) as never,
      set: (key, value) => store.setUser(scope, event.chatId, key, value),
    }
    const state: StateAccess = {
      get: async (key) => structuredClone(flowState[key]) as never,
      set: async (key, value) => {
        flowState[key] = structuredClone(value)
      },
    }
    const ctx: Context = {
      ref: { id: recordId, chatId: event.chatId, messageId: event.id },
      message,
      chatId: event.chatId,
      reply: (content, options = {}) => this.sender.send(event.chatId, content, options, origin),
      send: (chatId, content, options = {}) => this.sender.send(chatId, content, options, origin),
      enqueue: (chatId, content, options = {}) => this.sender.enqueue(chatId, content, options, origin),
      user,
      state,
    }
    bindMediaProvider(ctx, this.parts.provider)
    return ctx
  }
}

/** What an operator reads on a replayed record that fed nothing. */
function fedBeforeNote(fed: FedRecord): string {
  const what = fed.step < 0 ? `already started flow "${fed.flow}"` : `already answered question ${fed.step + 1} of flow "${fed.flow}"`
  return `replayed, but this message ${what}: it is not taken as the answer to the question asked now, and nothing ran`
}

/** The conversation before the message `recordId` (for a replay of it: the one it started from). */
function priorOf(stored: Conversation | undefined, recordId: string): Omit<Conversation, 'previous'> | null {
  if (!stored) return null
  return stored.fedBy === recordId ? stored.previous : stored
}

function strip(conversation: Omit<Conversation, 'previous'> | Conversation | null): Omit<Conversation, 'previous'> | null {
  if (!conversation) return null
  const { flow, step, state, finished, fedBy } = conversation
  return { flow, step, state, finished, fedBy }
}
