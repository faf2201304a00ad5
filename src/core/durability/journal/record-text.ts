/**
 * What text a record holds, for a search by content: the one rule every listing, every backend and
 * the dashboard search by. An inbound record holds its message's text (a media caption arrives as
 * the text) and the pressed button's id and label; a send holds its text, caption and button
 * labels. Ids, chats, errors and media references are not content.
 *
 * Sealed content (an encrypted journal) holds no text a reader without its key can see: a search
 * hands such records on, for the sealed journal above to open and judge (or count as unread).
 */
import type { Json } from './kv.js'
import type { RecordKind, RecordOf } from './records.js'

/** Every sealed value starts with this, whatever its format (core/encryption/sealed-text.ts writes them). */
export const SEALED_MARK = '$sealed:'

/** The field of each searched kind that holds its content. */
export const CONTENT_FIELDS: Readonly<Partial<Record<RecordKind, string>>> = { inbox: 'event', outbox: 'payload' }

/** The texts a record holds (empty for a kind without content, and for sealed content). */
export function recordText(kind: RecordKind, record: RecordOf[RecordKind]): string[] {
  const field = CONTENT_FIELDS[kind]
  const content = field === undefined ? undefined : ((record as unknown as Record<string, Json | undefined>)[field] ?? undefined)
  if (content === undefined || content === null || isSealedContent(content)) return []
  return kind === 'inbox' ? inboundText(content) : sendText(content)
}

/** Whether the record holds `text`, ignoring case; an empty text is held by every record. */
export function holdsText(kind: RecordKind, record: RecordOf[RecordKind], text: string): boolean {
  const needle = text.toLowerCase()
  if (needle === '') return true
  return recordText(kind, record).some((held) => held.toLowerCase().includes(needle))
}

/** Whether the record's content is sealed, so nothing can be read of it without its key. */
export function hasSealedContent(kind: RecordKind, record: RecordOf[RecordKind]): boolean {
  const field = CONTENT_FIELDS[kind]
  return field !== undefined && isSealedContent((record as unknown as Record<string, Json | undefined>)[field])
}

/**
 * What a search asks a store for (`KvListQuery.search`): the fragments of a value's JSON text a
 * matching entry holds, lowercase: the text as JSON writes it inside a string, and the sealed
 * content's start (`"event":"$sealed:`), so a sealed record is handed on too.
 */
export function searchFragments(kind: RecordKind, text: string): string[] {
  const fragments = [JSON.stringify(text.toLowerCase()).slice(1, -1)]
  const field = CONTENT_FIELDS[kind]
  if (field !== undefined) fragments.push(`${JSON.stringify(field)}:${JSON.stringify(SEALED_MARK).slice(0, -1)}`.toLowerCase())
  return fragments
}

function isSealedContent(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(SEALED_MARK)
}

/** An inbound event: its text (or caption) and the interaction's id and label. */
function inboundText(event: Json): string[] {
  if (typeof event === 'string') return [event]
  if (!isObject(event)) return []
  const interaction = isObject(event.interaction) ? event.interaction : undefined
  const data = interaction && isObject(interaction.data) ? interaction.data : undefined
  return strings(event.text, event.caption, interaction?.id, interaction?.title, data?.title, data?.text, data?.label)
}

/** A send's content: a text, or its text, caption and button labels. */
function sendText(payload: Json): string[] {
  if (typeof payload === 'string') return [payload]
  if (!isObject(payload)) return []
  const buttons = Array.isArray(payload.buttons) ? payload.buttons : []
  return strings(payload.text, payload.caption, ...buttons.map((button) => (isObject(button) ? button.title : undefined)))
}

function strings(...values: (Json | undefined)[]): string[] {
  return values.filter((value): value is string => typeof value === 'string' && value !== '')
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
