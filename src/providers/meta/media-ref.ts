/**
 * WhatsApp Cloud API (Meta) media references: the journal keeps the media id only. The download
 * asks the Graph API for the media's short-lived URL with the access token, added at download
 * time. Meta keeps inbound media for about 30 days.
 */
import { defineMediaRefCodec, type MediaRefCodec } from '../shared/codec.js'
import { objectProblem, prop, stringField } from '../shared/shape.js'

/** The token a stored reference rebuilds (a live webhook's media object has more fields). */
export interface MetaMediaToken {
  /** The Graph API media id (decimal digits), which the download exchanges for a short-lived URL. */
  id: string
}

/** Graph API media ids are decimal numbers written as strings. */
const MEDIA_ID = stringField(/^\d+$/, 64)

/** The WhatsApp Cloud API media-reference codec. */
export function metaMediaRefCodec(): MediaRefCodec<MetaMediaToken> {
  return defineMediaRefCodec<{ id: string }, MetaMediaToken>({
    channel: 'meta',
    pick(token) {
      const id = typeof token === 'string' ? token : prop(token, 'id')
      return typeof id === 'string' ? { id } : undefined
    },
    problem: (data) => objectProblem(data, { id: MEDIA_ID }),
    token: (data) => ({ id: data.id }),
  })
}
