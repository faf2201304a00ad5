/**
 * WPPConnect media references: the journal keeps the message id. The download asks the
 * WPPConnect server for the media of that message, with the session token added at download time.
 */
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { objectProblem, prop, stringField } from '../shared/shape.js'

/** The token a stored reference rebuilds (a live message has more fields, the body included). */
export interface WppconnectMediaToken {
  /** The message's serialized id (`true_5511999999999@c.us_3EB0…`), which the server finds the media by. */
  id: string
}

/** WPPConnect message ids: `true_5511999999999@c.us_3EB0C767D097B7C7C4E5` and the like. */
const MESSAGE_ID = stringField(/^[\w@.:-]+$/)

/** The WPPConnect media-reference codec. */
export function wppconnectMediaRefCodec(): MediaRefCodec<WppconnectMediaToken> {
  return defineMediaRefCodec<{ messageId: string }, WppconnectMediaToken>({
    channel: 'wppconnect',
    pick(token) {
      const id = typeof token === 'string' ? token : prop(token, 'id')
      return typeof id === 'string' ? { messageId: id } : undefined
    },
    problem: (data) => objectProblem(data, { messageId: MESSAGE_ID }),
    token: (data) => ({ id: data.messageId }),
  })
}
