/**
 * The one rule for an answer none of the contract's classes names (`answeredError`, shared by
 * Discord, Twilio, the Messenger Platform and the plain-HTTP channels): refused credentials are
 * final and say what to check, a server error is retried, any other answer is final; each channel
 * may say from its own codes which answer is which.
 */
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/core/errors/errors.js'
import { answeredError, ChannelApiError } from '../../src/providers/shared/errors.js'

const what = 'chan: POST /send answered'

describe('answeredError', () => {
  it('reads the status alone by default: 401 unauthorized, 5xx retried, any other final', () => {
    const unauthorized = answeredError('chan', what, { status: 401, hint: 'check the token' })
    expect(unauthorized).toBeInstanceOf(ChannelApiError)
    expect(unauthorized).toMatchObject({ code: ERROR_CODES.CHANNEL_UNAUTHORIZED, retryable: false, status: 401 })
    expect(unauthorized.message).toBe(`${what} (check the token)`)
    expect(answeredError('chan', what, { status: 503, hint: 'h' })).toMatchObject({
      code: ERROR_CODES.CHANNEL_SERVER_ERROR,
      retryable: true,
    })
    const rejected = answeredError('chan', what, { status: 404, hint: 'h' })
    expect(rejected).toMatchObject({ code: ERROR_CODES.CHANNEL_REJECTED, retryable: false, status: 404, channelCode: undefined })
    expect(rejected.message).toBe(what)
  })

  it("takes the channel's own reading over the status, and keeps its code", () => {
    const expired = answeredError('chan', what, { status: 400, channelCode: 190, unauthorized: true, hint: 'check the token' })
    expect(expired).toMatchObject({ code: ERROR_CODES.CHANNEL_UNAUTHORIZED, status: 400, channelCode: 190 })
    const transient = answeredError('chan', what, { status: 400, channelCode: 2, serverError: true, hint: 'h' })
    expect(transient).toMatchObject({ code: ERROR_CODES.CHANNEL_SERVER_ERROR, retryable: true, channelCode: 2 })
    const notAuth = answeredError('chan', what, { status: 401, unauthorized: false, serverError: false, hint: 'h' })
    expect(notAuth).toMatchObject({ code: ERROR_CODES.CHANNEL_REJECTED, retryable: false })
  })
})
