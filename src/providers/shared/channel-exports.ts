/**
 * What every channel's entry point (`botmesh/providers/<channel>`) exports beside its own names:
 * the media-reference codec's type and what a refused download says. The errors a provider throws
 * are `ProviderError`s of `botmesh/core`, told apart by `code` (docs/api-surface.md).
 */
export type { MediaRefCodec } from './codec.js'
export type { MediaRefusal } from './errors.js'
