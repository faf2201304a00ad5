/**
 * `botmesh/providers/twilio`: the Twilio media reference, for a provider of this channel
 * (`serializeMediaRef` / `rehydrateMediaRef` delegate to the codec; see the README's "Write your own
 * provider").
 */
export { twilioMediaRefCodec, type TwilioMediaToken, type TwilioMediaRefOptions } from './media-ref.js'
export type { MediaRefCodec } from '../shared/codec.js'
export { MediaRefInvalidError } from '../shared/errors.js'
