/**
 * What every channel's entry point (`botmesh/providers/<channel>`) exports beside its own names:
 * the media-reference codec's type and the errors every provider may throw (a refused media
 * reference, a failed or refused download, a configuration it cannot run with).
 */
export type { MediaRefCodec } from './codec.js'
export { MediaRefInvalidError, MediaDownloadError, MediaRefusedError, type MediaRefusal, ProviderConfigError } from './errors.js'
