/**
 * Splits a text over the channel's limit into parts, deterministically: the same text and limit
 * always give the same parts, so the part keys line up on every replay.
 */
import type { OutboundContent } from '../../provider/provider.js'

/** The parts of content: a text over the limit becomes several texts; anything else stays whole. */
export function splitContent(content: OutboundContent, limit: number | undefined): OutboundContent[] {
  if (!limit) return [content]
  if (typeof content === 'string') return splitText(content, limit)
  if (content.text !== undefined && !content.media && !content.buttons && Object.keys(content).length === 1) {
    return splitText(content.text, limit).map((text) => ({ text }))
  }
  return [content]
}

/** Breaks `text` into parts of at most `limit` characters, preferring a newline, then a space. */
export function splitText(text: string, limit: number): string[] {
  // A text of at most `limit` UTF-16 units has at most that many characters: no array of them per send.
  if (text.length <= limit) return [text]
  const chars = Array.from(text)
  if (chars.length <= limit) return [text]
  const parts: string[] = []
  let start = 0
  while (chars.length - start > limit) {
    let end = start + limit
    const window = chars.slice(start, end).join('')
    const breakAt = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '))
    // Break at whitespace only if it keeps parts reasonably full; otherwise cut hard.
    if (breakAt > limit / 2) end = start + Array.from(window.slice(0, breakAt)).length + 1
    parts.push(chars.slice(start, end).join(''))
    start = end
  }
  parts.push(chars.slice(start).join(''))
  return parts
}
