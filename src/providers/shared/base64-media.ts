/**
 * Media a channel's API answers inline as base64 (Evolution, WPPConnect): its bytes, refused before
 * decoding when the text says it is over the channel's download cap.
 */
import { MediaDownloadError } from './errors.js'

/** The bytes `base64` holds; `MediaDownloadError` when there is none (`noMedia` says who answered none) or it is over `bytesMax`. */
export function base64Media(channel: string, base64: unknown, bytesMax: number, noMedia: string): Buffer {
  if (typeof base64 !== 'string' || base64.length === 0) throw new MediaDownloadError(channel, noMedia)
  // Four base64 characters carry three bytes: the size is known before anything is decoded.
  if ((base64.length * 3) / 4 > bytesMax) throw new MediaDownloadError(channel, `the media is over the limit of ${bytesMax} bytes`)
  return Buffer.from(base64, 'base64')
}
