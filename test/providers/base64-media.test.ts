/**
 * Media answered inline as base64 (Evolution, WPPConnect; `shared/base64-media.ts`): decoded when
 * it is there and within the cap, refused as `MediaDownloadError` (final) when it is missing or
 * announces more bytes than the cap.
 */
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/core/errors/errors.js'
import { base64Media } from '../../src/providers/shared/base64-media.js'
import { MediaDownloadError } from '../../src/providers/shared/errors.js'

describe('base64Media', () => {
  it('decodes media within the cap, up to the cap exactly', () => {
    const bytes = Buffer.from('twelve bytes')
    expect(base64Media('evolution', bytes.toString('base64'), 12, 'none')).toEqual(bytes)
  })

  it('refuses media over the cap before decoding it, and a missing or empty answer', () => {
    const over = () => base64Media('wppconnect', Buffer.from('thirteen byte').toString('base64'), 12, 'none')
    expect(over).toThrow(MediaDownloadError)
    expect(over).toThrow(
      expect.objectContaining({
        code: ERROR_CODES.MEDIA_DOWNLOAD_FAILED,
        retryable: false,
        message: 'wppconnect: the media could not be downloaded: the media is over the limit of 12 bytes',
      }),
    )
    for (const missing of [undefined, '', 42])
      expect(() => base64Media('evolution', missing, 12, 'Evolution answered no media')).toThrow(
        'evolution: the media could not be downloaded: Evolution answered no media',
      )
  })
})
