/**
 * Outbound content as Bot API calls: a text is `sendMessage`; media is `sendPhoto`,
 * `sendDocument`, `sendVideo`, `sendAudio` or `sendSticker` by URL, path or bytes, with its caption;
 * buttons become an inline keyboard whose `callback_data` is the button id.
 */
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { checkCaption, checkedText, shownText } from '../shared/content-checks.js'
import type { OutboundMessage } from '../shared/content-checks.js'
import { apiSignal, type Grammy } from './client.js'
import { TELEGRAM_LIMITS } from './limits.js'

type Buttons = NonNullable<OutboundMessage['buttons']>

const METHODS = { image: 'sendPhoto', document: 'sendDocument', video: 'sendVideo', audio: 'sendAudio', sticker: 'sendSticker' } as const

/** Sends `content` to `chatId`; resolves the message id Telegram gave it. */
export async function sendContent(grammy: Grammy, chatId: string, content: OutboundContent, signal: AbortSignal): Promise<string> {
  const { api, InputFile } = grammy
  if (typeof content === 'string') content = { text: content }
  const markup = content.buttons?.length ? { reply_markup: keyboardOf(content.buttons) } : {}
  if (!content.media) {
    const text = checkedText('telegram', shownText(content), TELEGRAM_LIMITS.textLimit)
    const sent = await api.sendMessage(chatId, text, markup, apiSignal(signal))
    return String(sent.message_id)
  }
  const { media } = content
  const caption = shownText(content)
  checkCaption('telegram', caption, TELEGRAM_LIMITS.captionLimit)
  const file =
    media.url ?? (media.path ? new InputFile(media.path) : media.buffer ? new InputFile(media.buffer, media.fileName) : undefined)
  if (file === undefined) throw new UnsupportedContentError('telegram: media needs a url, a path or a buffer')
  const other = { ...(caption && media.type !== 'sticker' ? { caption } : {}), ...markup }
  const method = METHODS[media.type]
  const sent = await (
    api[method] as (chat: string, file: unknown, other: object, signal: AbortSignal) => Promise<{ message_id: number }>
  ).call(api, chatId, file, other, signal)
  return String(sent.message_id)
}

function keyboardOf(buttons: Buttons) {
  for (const button of buttons) {
    if (Buffer.byteLength(button.id) > TELEGRAM_LIMITS.callbackDataBytesMax)
      throw new PayloadTooLargeError(
        `telegram: the button id "${button.id.slice(0, 20)}…" is over ${TELEGRAM_LIMITS.callbackDataBytesMax} bytes of callback_data`,
      )
  }
  return { inline_keyboard: buttons.map((button) => [{ text: button.title, callback_data: button.id }]) }
}
