/**
 * Media downloads from WhatsApp's CDN through the library's `downloadMediaMessage`: it fetches the
 * encrypted file by its direct path and decrypts it with the message's media key. When the CDN no
 * longer has it (404 or 410: WhatsApp keeps media for a limited time), the sender's phone is asked
 * to upload it again (`updateMediaMessage`, a media retry receipt) and the new copy is downloaded,
 * for a live message and a replayed one alike. The provider asks the phone itself: the library's
 * own re-upload hook reads a `status` its HTTP errors do not carry (they carry
 * `output.statusCode`), so in baileys 7.0.0-rc14 it never fires. Only the replica holding the
 * socket can ask the phone; elsewhere an expired file fails to download.
 */
import type { Readable } from 'node:stream'
import type { WAMessage } from 'baileys'
import { checkedDispatcher, refusalIn } from '../shared/download.js'
import { MediaDownloadError, MediaRefusedError } from '../shared/errors.js'
import { describeError } from '../shared/redact.js'
import type { BaileysLogger, BaileysModule, BaileysSocket } from './client.js'
import { disconnectCode } from './errors.js'

/** CDN answers for a file it no longer keeps. */
const EXPIRED = [404, 410]

/** What a download needs. */
export interface DownloadDeps {
  baileys: BaileysModule
  /** The open socket, to ask the phone to re-upload expired media; undefined on a replica without one. */
  socket: BaileysSocket | undefined
  logger: BaileysLogger
  bytesMax: number
  timeoutMs: number
  /** Exact origins a test double serves the CDN from (`mediaTestOrigins`). */
  trustedOrigins: readonly string[]
}

/** The WhatsApp media CDN: the only hosts a download goes to. */
const CDN_HOSTS = ['whatsapp.net']
/** The host Baileys builds a URL on when the message names none. */
const DEFAULT_CDN_HOST = 'mmg.whatsapp.net'

/** Downloads and decrypts the media of `message` (a live message, or one rebuilt from the journal). */
export async function downloadMedia(message: WAMessage, deps: DownloadDeps): Promise<Buffer> {
  let stream: Readable | undefined
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new MediaRefusedError('baileys', 'timeout', `no complete answer within ${deps.timeoutMs} ms`)),
      deps.timeoutMs,
    )
    timer.unref()
  })
  try {
    return await Promise.race([
      (async () => {
        stream = await openStream(message, deps)
        return readBounded(stream, deps.bytesMax)
      })(),
      timedOut,
    ])
  } catch (error) {
    stream?.destroy()
    if (error instanceof MediaDownloadError) throw error
    const refused = refusalIn('baileys', error)
    if (refused) throw refused
    const status = disconnectCode(error)
    throw new MediaDownloadError('baileys', describeError(error, []), {
      ...(status !== undefined ? { status } : {}),
      // Expired and not re-uploaded, or refused by the phone: asking again gives the same answer.
      retryable: status === undefined || ![404, 410, 412, 418].includes(status),
      cause: error,
    })
  } finally {
    clearTimeout(timer)
  }
}

/** The decrypting stream of the file, asking the phone for a new copy once when the CDN no longer has it. */
async function openStream(message: WAMessage, deps: DownloadDeps): Promise<Readable> {
  try {
    return await deps.baileys.downloadMediaMessage(message, 'stream', fetchOptions(message, deps))
  } catch (error) {
    const status = disconnectCode(error)
    if (!deps.socket || status === undefined || !EXPIRED.includes(status)) throw error
    deps.logger.info({ key: message.key }, 'media expired on the CDN; asking the phone to upload it again')
    const renewed = await deps.socket.updateMediaMessage(message)
    return deps.baileys.downloadMediaMessage(renewed, 'stream', fetchOptions(renewed, deps))
  }
}

/**
 * The download policy on the URL Baileys will fetch (`https://<the url's host><directPath>`, or
 * `url`), for a live message as for a replayed one: HTTPS to `whatsapp.net` only, every address
 * checked as it is connected to (the dispatcher handed to Baileys' `fetch`).
 */
function fetchOptions(message: WAMessage, deps: DownloadDeps): { options: RequestInit } {
  const content = mediaContentOf(message.message)
  const url = typeof content?.url === 'string' ? content.url : undefined
  let host = DEFAULT_CDN_HOST
  try {
    if (url) host = new URL(url).host
  } catch {
    throw new MediaRefusedError('baileys', 'url', 'the media URL cannot be parsed')
  }
  const path = typeof content?.directPath === 'string' ? content.directPath : undefined
  if (path !== undefined && !/^\/(?!\/)/.test(path)) throw new MediaRefusedError('baileys', 'url', 'the direct path is not a path')
  const target = path !== undefined ? `https://${host}${path}` : url
  if (target === undefined) throw new MediaRefusedError('baileys', 'url', 'the message names no media URL')
  const dispatcher = checkedDispatcher('baileys', target, {
    hosts: CDN_HOSTS,
    trustedOrigins: deps.trustedOrigins,
    bytesMax: deps.bytesMax,
  })
  // Node's fetch takes an undici dispatcher; the DOM's RequestInit does not name it.
  return { options: { dispatcher } as RequestInit }
}

/** The media content of a message, through the wrappers Baileys reads. */
function mediaContentOf(message: unknown): { url?: unknown; directPath?: unknown } | undefined {
  let current = message as Record<string, unknown> | null | undefined
  for (let depth = 0; depth <= 4 && current && typeof current === 'object'; depth++) {
    const kind = Object.keys(current).find((name) => /^(image|video|audio|document|sticker)Message$/.test(name))
    if (kind) return current[kind] as { url?: unknown; directPath?: unknown }
    const wrapper = Object.values(current).find((value) => value && typeof value === 'object' && 'message' in value) as
      { message?: Record<string, unknown> } | undefined
    current = wrapper?.message
  }
  return undefined
}

async function readBounded(stream: Readable, bytesMax: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > bytesMax) throw new MediaRefusedError('baileys', 'size', `the media is over the limit of ${bytesMax} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
