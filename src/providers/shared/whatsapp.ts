/**
 * WhatsApp identifiers shared by the channels that speak WhatsApp Web (Baileys, Evolution): a JID
 * on one of WhatsApp's own domains, and a message key.
 */
import type { Json } from '../../core/provider.js'
import { booleanField, objectField, prop, stringField, type FieldCheck } from './shape.js'

/** A JID: a user, group, LID, broadcast or newsletter address on WhatsApp's own domains. */
export const WHATSAPP_JID: FieldCheck = stringField(/^[\w.:+-]+@(s\.whatsapp\.net|c\.us|g\.us|lid|broadcast|newsletter)$/, 128)

/** A message key: `{ remoteJid, fromMe, id, participant? }`. */
export const MESSAGE_KEY: FieldCheck = objectField(
  { remoteJid: WHATSAPP_JID, fromMe: booleanField, id: stringField(/^[A-Za-z0-9_-]+$/, 128), participant: WHATSAPP_JID },
  ['participant'],
)

/** The message key of a live token, with only the fields a key has. */
export function messageKeyOf(
  key: unknown,
): { remoteJid: string; fromMe: boolean; id: string; participant?: string } & { [k: string]: Json } {
  const participant = prop(key, 'participant')
  return {
    remoteJid: prop(key, 'remoteJid') as string,
    fromMe: prop(key, 'fromMe') === true,
    id: prop(key, 'id') as string,
    ...(typeof participant === 'string' && participant ? { participant } : {}),
  }
}
