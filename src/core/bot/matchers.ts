/**
 * Matchers for `bot.when`: which inbound messages a handler takes. First match wins. The built-in
 * ones are type predicates, so the handler's context says what they checked: after `TEXT`,
 * `ctx.message.text` is a `string`.
 */
import type { InboundEvent, MediaRef, MediaType } from '../provider/provider.js'

/** Whether a handler takes an inbound event. */
export type Matcher = (event: InboundEvent) => boolean

/**
 * A matcher that says what it checked: `bot.when` narrows the handler's `ctx.message` by `Checked`.
 * Write your own as a type predicate: `(event): event is InboundEvent & { from: string } => event.from !== undefined`.
 */
export type NarrowingMatcher<Checked> = (event: InboundEvent) => event is InboundEvent & Checked

/** What a text matcher checked: the message has a text. */
export interface WithText {
  /** The message's text (or a media caption, for `text(…)`). */
  text: string
}

/** What a media matcher checked: the message has media of that type. */
export interface WithMedia<Type extends MediaType = MediaType> {
  /** The message's media. */
  media: MediaOfType<Type>
}

/** A media reference of one type. */
export interface MediaOfType<Type extends MediaType> extends MediaRef {
  /** What kind of media it is. */
  type: Type
}

/** A text message without media or an interaction. */
export const TEXT: NarrowingMatcher<WithText> = (event): event is InboundEvent & WithText =>
  typeof event.text === 'string' && !event.media && !event.interaction
/** A message with an image. */
export const IMAGE: NarrowingMatcher<WithMedia<'image'>> = mediaOf('image')
/** A message with a video. */
export const VIDEO: NarrowingMatcher<WithMedia<'video'>> = mediaOf('video')
/** A message with audio (a voice note too). */
export const AUDIO: NarrowingMatcher<WithMedia<'audio'>> = mediaOf('audio')
/** A message with a document. */
export const DOCUMENT: NarrowingMatcher<WithMedia<'document'>> = mediaOf('document')
/** A button press or another interaction. */
export const INTERACTION: Matcher = (event) => event.kind === 'interaction' || event.interaction !== undefined
/** Any inbound event. */
export const ANY: Matcher = () => true

/** A text equal to `pattern` (trimmed, case-insensitive) or matching the RegExp. */
export function text(pattern: string | RegExp): NarrowingMatcher<WithText> {
  return (event): event is InboundEvent & WithText => {
    if (typeof event.text !== 'string') return false
    return typeof pattern === 'string' ? event.text.trim().toLowerCase() === pattern.trim().toLowerCase() : pattern.test(event.text)
  }
}

function mediaOf<Type extends MediaType>(type: Type): NarrowingMatcher<WithMedia<Type>> {
  return (event): event is InboundEvent & WithMedia<Type> => event.media?.type === type
}
