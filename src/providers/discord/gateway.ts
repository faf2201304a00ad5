/**
 * Receiving over the gateway. Discord does not deliver a gateway event twice, so a message is
 * handed to the journal as it arrives; a button press is acknowledged (the interaction callback,
 * `DEFERRED_UPDATE_MESSAGE`) only after the inbox journaled it, and a press the journal refused is
 * left unanswered, so the user sees it fail and can press again.
 */
import type { REST } from '@discordjs/rest'
import type { WebSocketManager } from '@discordjs/ws'
import type { InboundEvent } from '../../core/provider/provider.js'
import { interactionEventOf, messageEventOf, type DiscordInteraction, type DiscordMessage } from './events.js'

/** What the gateway loop needs from its provider. */
export interface GatewayDeps {
  manager: WebSocketManager
  rest: REST
  sink: (event: InboundEvent) => Promise<void>
  onError: (error: unknown) => void
}

/** Connects and hands each message and button press to the sink, in the order they came. Resolves once connected. */
export async function receiveFromGateway(deps: GatewayDeps): Promise<void> {
  let tail = Promise.resolve()
  deps.manager.on(
    'dispatch' as never,
    ((payload: { t: string; d: unknown }) => {
      tail = tail.then(() => handle(deps, payload)).catch(deps.onError)
    }) as never,
  )
  deps.manager.on('error' as never, ((error: unknown) => deps.onError(error)) as never)
  await deps.manager.connect()
}

async function handle(deps: GatewayDeps, payload: { t: string; d: unknown }): Promise<void> {
  if (payload.t === 'MESSAGE_CREATE') {
    const event = messageEventOf(payload.d as DiscordMessage)
    if (event) await deps.sink(event)
    return
  }
  if (payload.t !== 'INTERACTION_CREATE') return
  const interaction = payload.d as DiscordInteraction
  const event = interactionEventOf(interaction)
  if (!event) return
  await deps.sink(event)
  await deps.rest.post(`/interactions/${interaction.id}/${interaction.token}/callback`, { body: { type: 6 }, auth: false })
}
