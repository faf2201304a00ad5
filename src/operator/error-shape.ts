/**
 * The shape of an error message: its numbers, ids and quoted values replaced by placeholders, so
 * messages that differ only in them fall in one group of dead letters.
 */
import { createHash } from 'node:crypto'
import type { ErrorInfo } from '../core/durability/journal/records.js'

const SHAPES: [RegExp, string][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/"[^"]*"|'[^']*'/g, '"…"'],
  [/\b(?=[0-9a-z_-]*\d)[0-9a-z_-]{12,}\b/gi, '<id>'],
  [/\b0x[0-9a-f]+\b/gi, '<n>'],
  [/\d+(?:\.\d+)?/g, '<n>'],
]

/** The message with ids, quoted values and numbers replaced, so messages that differ only in them match. */
export function messageShape(message: string): string {
  let shape = message
  for (const [pattern, placeholder] of SHAPES) shape = shape.replace(pattern, placeholder)
  return shape.replace(/\s+/g, ' ').trim()
}

/** The id of the group an error falls in. */
export function errorGroupId(kind: 'inbox' | 'outbox', error: ErrorInfo | null): string {
  const key = `${kind}\u0000${error?.code ?? ''}\u0000${error ? messageShape(error.message) : ''}`
  return createHash('sha256').update(key).digest('hex').slice(0, 8)
}
