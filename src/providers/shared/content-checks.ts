/**
 * What a channel refuses in outbound content before any call, with the same words on every
 * channel: a message with neither text nor media, a text or a caption over the channel's limit,
 * and buttons it cannot send. Each is final (`UnsupportedContentError` or `PayloadTooLargeError`),
 * so the outbox dead-letters the send instead of retrying it. The channel decides which checks
 * apply and in what order; these only say them once.
 */
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'

/** Outbound content in its object form (a channel reads a plain string as `{ text }`). */
export type OutboundMessage = Exclude<OutboundContent, string>
/** The media of an outbound message. */
export type OutboundMedia = NonNullable<OutboundMessage['media']>

/** `content` in its object form: a plain string is a text message. */
export function asMessage(content: OutboundContent): OutboundMessage {
  return typeof content === 'string' ? { text: content } : content
}

/** The text a message shows: with media its caption (else its text), without media its text (else its caption). */
export function shownText(content: OutboundMessage): string | undefined {
  return content.media ? (content.caption ?? content.text) : (content.text ?? content.caption)
}

/** The text of a message without media: refused when there is none, or when it is over `textLimit`. */
export function checkedText(channel: string, text: string | undefined, textLimit: number): string {
  if (!text) throw new UnsupportedContentError(`${channel}: a message needs a text or media`)
  if (text.length > textLimit)
    throw new PayloadTooLargeError(`${channel}: a text of ${text.length} characters is over the limit of ${textLimit}`)
  return text
}

/** Refuses a media caption over `captionLimit`. */
export function checkCaption(channel: string, caption: string | undefined, captionLimit: number): void {
  if (caption && caption.length > captionLimit)
    throw new PayloadTooLargeError(`${channel}: a caption of ${caption.length} characters is over the limit of ${captionLimit}`)
}

/** How a channel's buttons are named in its refusals, and how many (and how long) it takes. */
export interface ButtonRules {
  /** What the channel calls them: 'reply buttons', 'quick replies', 'buttons'. */
  noun: string
  buttonsMax: number
  /** The longest button title; without it titles are not checked here. */
  buttonTitleMax?: number
}

/**
 * The text that carries `content`'s buttons: refused when the message has media too, more buttons
 * than `buttonsMax`, a title over `buttonTitleMax`, or no text.
 */
export function buttonsText(channel: string, content: OutboundMessage, rules: ButtonRules): string {
  const { noun, buttonsMax, buttonTitleMax } = rules
  const buttons = content.buttons ?? []
  if (content.media) throw new UnsupportedContentError(`${channel}: ${noun} with media are not supported by this transport`)
  if (buttons.length > buttonsMax) throw new UnsupportedContentError(`${channel}: at most ${buttonsMax} ${noun} (${buttons.length} given)`)
  const long = buttonTitleMax === undefined ? undefined : buttons.find((b) => b.title.length > buttonTitleMax)
  if (long) throw new PayloadTooLargeError(`${channel}: the button title "${long.title}" is over ${buttonTitleMax} characters`)
  const text = shownText(content)
  if (!text) throw new UnsupportedContentError(`${channel}: ${noun} need a text`)
  return text
}
