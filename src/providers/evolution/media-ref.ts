/**
 * Evolution API media references: the journal keeps the message key. A live Evolution webhook may
 * carry the media inline as base64; that is never journaled (it is the media itself, and can be
 * large). The download asks Evolution for the media of the message key, with the API key added at
 * download time.
 */
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { objectProblem, prop } from '../shared/shape.js'
import { MESSAGE_KEY, messageKeyOf } from '../shared/whatsapp.js'

/** A WhatsApp message key, as Evolution reports it. */
export interface EvolutionMessageKey {
  /** The chat's JID: the contact (`…@s.whatsapp.net`) or the group (`…@g.us`). */
  remoteJid: string
  /** Whether the instance's own number sent the message. */
  fromMe: boolean
  /** The message's id, as WhatsApp assigned it. */
  id: string
  /** In a group, the JID of the member who sent the message. */
  participant?: string
}

/** The token a stored reference rebuilds (a live webhook's `data` has more fields). */
export interface EvolutionMediaToken {
  /** The key of the message that carried the media; Evolution looks the media up by it. */
  key: EvolutionMessageKey
}

/** The Evolution API media-reference codec. */
export function evolutionMediaRefCodec(): MediaRefCodec<EvolutionMediaToken> {
  return defineMediaRefCodec<{ key: { remoteJid: string; fromMe: boolean; id: string; participant?: string } }, EvolutionMediaToken>({
    channel: 'evolution',
    pick: (token) => ({ key: messageKeyOf(prop(token, 'key')) }),
    problem: (data) => objectProblem(data, { key: MESSAGE_KEY }),
    token: (data) => ({ key: { ...data.key } }),
  })
}
