/**
 * What a shadow run compares of a send: its text (or caption), its media's kind and reference, and
 * its buttons, and a one-line description of those for a report. Two sends are the same when their
 * shapes are.
 */
import { hash } from 'node:crypto'
import type { OutboundContent } from '../../core/provider/provider.js'

/** The compared parts of one send. */
export interface SendShape {
  /** The text, or null. */
  text: string | null
  /** The media caption, or null. */
  caption: string | null
  /** The media's kind and where it comes from (a URL, a path, or a digest of its bytes), or null. */
  media: { type: string; ref: string } | null
  /** The buttons' ids and titles, in order. */
  buttons: { id: string; title: string }[]
}

/** The shape of outbound content. */
export function shapeOf(content: OutboundContent): SendShape {
  if (typeof content === 'string') return { text: content, caption: null, media: null, buttons: [] }
  const media = content.media
  return {
    text: content.text ?? null,
    caption: content.caption ?? null,
    media: media ? { type: media.type, ref: mediaRef(media) } : null,
    buttons: (content.buttons ?? []).map((button) => ({ id: button.id, title: button.title })),
  }
}

/** Whether two lists of sends are the same, send by send in order. */
export function sameSends(recorded: readonly SendShape[], shadow: readonly SendShape[]): boolean {
  return recorded.length === shadow.length && recorded.every((send, index) => sameShape(send, shadow[index]!))
}

function sameShape(a: SendShape, b: SendShape): boolean {
  return (
    a.text === b.text &&
    a.caption === b.caption &&
    a.media?.type === b.media?.type &&
    a.media?.ref === b.media?.ref &&
    a.buttons.length === b.buttons.length &&
    a.buttons.every((button, index) => button.id === b.buttons[index]!.id && button.title === b.buttons[index]!.title)
  )
}

/** One line a person reads: `text`, `[image https://…] caption`, `… [Yes|No]`. */
export function describeShape(shape: SendShape): string {
  const parts: string[] = []
  if (shape.media) parts.push(`[${shape.media.type} ${shape.media.ref}]`)
  if (shape.text !== null) parts.push(shape.text)
  if (shape.caption !== null) parts.push(shape.caption)
  if (shape.buttons.length > 0) parts.push(`[${shape.buttons.map((button) => button.title).join(' | ')}]`)
  return parts.join(' ')
}

function mediaRef(media: NonNullable<Exclude<OutboundContent, string>['media']>): string {
  if (media.url !== undefined) return media.url
  if (media.path !== undefined) return media.path
  if (media.buffer !== undefined) return `sha256:${hash('sha256', media.buffer, 'hex').slice(0, 16)}`
  return '-'
}
