/**
 * `botmesh/providers/twilio`: SMS and WhatsApp through Twilio (a webhook server, REST sends on the
 * `twilio` package, media downloads), and the Twilio media reference (the media URL). The `twilio`
 * package is an optional peer dependency, loaded only when the provider starts or sends.
 *
 * @module botmesh/providers/twilio
 */
export { TwilioProvider, type TwilioProviderOptions } from './provider.js'
export { twilioError } from './errors.js'
export { TWILIO_LIMITS, TWILIO_API_ORIGIN_DEFAULT } from './limits.js'
export { twilioMediaRefCodec, type TwilioMediaToken, type TwilioMediaRefOptions } from './media-ref.js'
export * from '../shared/channel-exports.js'
export type { ChannelApiCode } from '../shared/errors.js'
