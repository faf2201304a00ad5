/** Matchers for `bot.when`: which inbound messages a handler takes. First match wins. */
import type { InboundEvent } from './provider.js'

export type Matcher = (event: InboundEvent) => boolean

export const TEXT: Matcher = (event) => typeof event.text === 'string' && !event.media && !event.interaction
export const IMAGE: Matcher = (event) => event.media?.type === 'image'
export const VIDEO: Matcher = (event) => event.media?.type === 'video'
export const AUDIO: Matcher = (event) => event.media?.type === 'audio'
export const DOCUMENT: Matcher = (event) => event.media?.type === 'document'
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
