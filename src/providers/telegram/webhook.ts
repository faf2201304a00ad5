/**
 * Webhook mode: Telegram POSTs each update to the bot's URL with the secret token set in
 * `setWebhook` in the `X-Telegram-Bot-Api-Secret-Token` header; a request without it is refused
 * with 401 before its body is read. The answer is 200 only after the
 * inbox journaled the update; any other answer makes Telegram deliver it again later.
 */
import { timingSafeEqual } from 'node:crypto'
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { inboundOf, type TelegramUpdate } from './updates.js'

/** What the webhook handler needs from its provider. */
export interface TelegramWebhookDeps {
  path: string
  secretToken: string
  sink: (event: InboundEvent, update: TelegramUpdate) => Promise<void>
}

/** The answer from the request line and headers alone: a wrong path, method or secret token; undefined reads the body. */
export function telegramWebhookHead(
  head: WebhookHead,
  deps: Pick<TelegramWebhookDeps, 'path' | 'secretToken'>,
): WebhookResponse | undefined {
  if (head.url.pathname !== deps.path) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  if (!sameSecret(head.headers['x-telegram-bot-api-secret-token'], deps.secretToken)) return { status: 401 }
  return undefined
}

/** Handles one webhook request. */
export async function handleTelegramWebhook(request: WebhookRequest, deps: TelegramWebhookDeps): Promise<WebhookResponse> {
  const early = telegramWebhookHead(request, deps)
  if (early) return early
  let update: TelegramUpdate
  try {
    update = JSON.parse(request.body.toString('utf8')) as TelegramUpdate
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  if (typeof update?.update_id !== 'number') return { status: 400, body: 'not an update' }
  const event = inboundOf(update)
  // A rejected sink (the journal is down) throws: the server answers 500 and Telegram retries.
  if (event) await deps.sink(event, update)
  return { status: 200 }
}

/** Compares the header with the secret in constant time. */
function sameSecret(header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false
  const a = Buffer.from(header)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}
