/** Matchers for `bot.when`: which inbound messages a handler takes. First match wins. */
import type { InboundEvent } from './provider.js'

/** Whether a handler takes an inbound event. */
export type Matcher = (event: InboundEvent) => boolean

/** A text message without media or an interaction. */
export const TEXT: Matcher = (event) => typeof event.text === 'string' && !event.media && !event.interaction
/** A message with an image. */
export const IMAGE: Matcher = (event) => event.media?.type === 'image'
/** A message with a video. */
export const VIDEO: Matcher = (event) => event.media?.type === 'video'
/** A message with audio (a voice note too). */
export const AUDIO: Matcher = (event) => event.media?.type === 'audio'
/** A message with a document. */
export const DOCUMENT: Matcher = (event) => event.media?.type === 'document'
/** A button press or another interaction. */
export const INTERACTION: Matcher = (event) => event.kind === 'interaction' || event.interaction !== undefined
/** Any inbound event. */
export const ANY: Matcher = () => true

/** A text equal to `pattern` (trimmed, case-insensitive) or matching the RegExp. */
export function text(pattern: string | RegExp): Matcher {
  return (event) => {
    if (typeof event.text !== 'string') return false
    return typeof pattern === 'string' ? event.text.trim().toLowerCase() === pattern.trim().toLowerCase() : pattern.test(event.text)
  }
}
