/** The thirteen channels with a folder (and a `botmesh/providers/<channel>` export) of their own. */
export const PROVIDER_CHANNELS = [
  'baileys',
  'meta',
  'telegram',
  'twilio',
  'messenger',
  'instagram',
  'discord',
  'evolution',
  'wppconnect',
  'gupshup',
  'gohighlevel',
  'email',
  'tiktok',
] as const

/** One of `PROVIDER_CHANNELS`. */
export type ProviderChannel = (typeof PROVIDER_CHANNELS)[number]
