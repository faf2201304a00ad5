/**
 * Gateway dispatches and interaction payloads as inbound events. A `MESSAGE_CREATE` from a person
 * (bots, this one included, are skipped) is a message in its channel: the chat is the channel id,
 * the event id the message id, its first attachment its media. A button press
 * (`INTERACTION_CREATE`, a message component) is an interaction whose id is the button's
 * `custom_id`; the event id is the interaction's id.
 */
import type { InboundEvent, MediaRef, MediaType } from '../../core/provider/provider.js'

/** A Discord attachment (only what the transport reads). */
export interface DiscordAttachment {
  id: string
  filename?: string
  content_type?: string
  url: string
}

/** A message object of a `MESSAGE_CREATE` dispatch. */
export interface DiscordMessage {
  id: string
  channel_id: string
  author?: { id: string; bot?: boolean }
  content?: string
  timestamp?: string
  attachments?: DiscordAttachment[]
}

/** An interaction object (gateway `INTERACTION_CREATE` or the interactions endpoint). */
export interface DiscordInteraction {
  id: string
  type: number
  token: string
  channel_id?: string
  channel?: { id: string }
  data?: { custom_id?: string; component_type?: number }
  member?: { user?: { id: string } }
  user?: { id: string }
}

/** Interaction types: a ping (the endpoint's check) and a message component (a button). */
export const INTERACTION_TYPES = { ping: 1, messageComponent: 3 } as const

/** The event of a person's message, or undefined (a bot's, or not a message). */
export function messageEventOf(message: DiscordMessage): InboundEvent | undefined {
  if (!message?.id || !message.channel_id || !message.author || message.author.bot) return undefined
  const event: InboundEvent = { id: message.id, chatId: message.channel_id, from: message.author.id, kind: 'message' }
  if (message.timestamp) event.timestamp = Date.parse(message.timestamp)
  if (message.content) event.text = message.content
  const attachment = message.attachments?.[0]
  if (attachment?.url) {
    const media: MediaRef = { type: mediaTypeOf(attachment.content_type), token: { url: attachment.url } }
    if (attachment.content_type) media.mimeType = attachment.content_type
    if (attachment.filename) media.fileName = attachment.filename
    event.media = media
  }
  return event
}

/** The event of a button press, or undefined (another kind of interaction). */
export function interactionEventOf(interaction: DiscordInteraction): InboundEvent | undefined {
  const chatId = interaction.channel_id ?? interaction.channel?.id
  const customId = interaction.data?.custom_id
  if (interaction.type !== INTERACTION_TYPES.messageComponent || !chatId || !customId) return undefined
  const from = interaction.member?.user?.id ?? interaction.user?.id
  return { id: interaction.id, chatId, kind: 'interaction', interaction: { id: customId }, ...(from ? { from } : {}) }
}

function mediaTypeOf(contentType: string | undefined): MediaType {
  const kind = contentType?.split('/')[0]
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'document'
}
