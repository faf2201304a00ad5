/**
 * Outbound content as a Discord message (`POST /channels/{channel.id}/messages`): content up to
 * 2000 characters, buttons as action rows (five per row, a press comes back as its `custom_id`),
 * media uploaded from a path or bytes as an attachment, or by URL as an image embed (an image) or a
 * link in the content (other media). Content over the limits is refused before any call.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { PayloadTooLargeError, UnsupportedContentError } from '../../core/provider/provider-errors.js'
import type { OutboundContent } from '../../core/provider/provider.js'
import { asMessage } from '../shared/content-checks.js'
import type { OutboundMessage } from '../shared/content-checks.js'
import { DISCORD_LIMITS } from './limits.js'

/** What the REST client's `post` takes: the JSON body and the files to upload. */
export interface DiscordMessageRequest {
  body: Record<string, unknown>
  files?: { name: string; data: Buffer; contentType?: string }[]
}

/** The request that sends `content`. */
export async function messageRequest(content: OutboundContent): Promise<DiscordMessageRequest> {
  const c = asMessage(content)
  const lines = [c.text, c.media ? c.caption : undefined].filter((line): line is string => Boolean(line))
  const body: Record<string, unknown> = {}
  let files: DiscordMessageRequest['files']
  if (c.media?.url) {
    if (c.media.type === 'image') body.embeds = [{ image: { url: c.media.url } }]
    else lines.push(c.media.url)
  } else if (c.media) {
    const data = c.media.buffer ?? (c.media.path ? await readFile(c.media.path) : undefined)
    if (!data) throw new UnsupportedContentError('discord: media needs a url, a path or a buffer')
    const name = c.media.fileName ?? (c.media.path ? basename(c.media.path) : 'file')
    files = [{ name, data, ...(c.media.mimeType ? { contentType: c.media.mimeType } : {}) }]
    body.attachments = [{ id: 0, filename: name }]
  }
  const text = lines.join('\n')
  if (text.length > DISCORD_LIMITS.textLimit)
    throw new PayloadTooLargeError(`discord: content of ${text.length} characters is over the limit of ${DISCORD_LIMITS.textLimit}`)
  if (text) body.content = text
  if (c.buttons?.length) body.components = componentsOf(c.buttons)
  if (!text && !c.media) throw new UnsupportedContentError('discord: a message needs content or media')
  return files ? { body, files } : { body }
}

function componentsOf(buttons: NonNullable<OutboundMessage['buttons']>): object[] {
  if (buttons.length > DISCORD_LIMITS.buttonsMax)
    throw new UnsupportedContentError(`discord: at most ${DISCORD_LIMITS.buttonsMax} buttons (${buttons.length} given)`)
  const long = buttons.find((b) => b.title.length > DISCORD_LIMITS.buttonLabelMax || b.id.length > DISCORD_LIMITS.customIdMax)
  if (long) throw new PayloadTooLargeError(`discord: the button "${long.title}" is over the label or custom_id limit`)
  const rows: object[] = []
  for (let i = 0; i < buttons.length; i += DISCORD_LIMITS.buttonsPerRowMax) {
    const row = buttons.slice(i, i + DISCORD_LIMITS.buttonsPerRowMax)
    // Type 1: an action row; type 2: a button, style 1: primary.
    rows.push({ type: 1, components: row.map((b) => ({ type: 2, style: 1, label: b.title, custom_id: b.id })) })
  }
  return rows
}
