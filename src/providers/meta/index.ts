/**
 * `botmesh/providers/meta`: the WhatsApp Cloud API (Meta) media reference (the media id).
 */
export { metaMediaRefCodec, type MetaMediaToken } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
