/**
 * `botmesh/providers/messenger`: the Messenger media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { MESSENGER_MEDIA_HOSTS, messengerMediaRefCodec, type MessengerMediaToken, type MessengerMediaRefOptions } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
