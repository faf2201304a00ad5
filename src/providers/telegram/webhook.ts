/**
 * Webhook mode: Telegram POSTs each update to the bot's URL with the secret token set in
 * `setWebhook` in the `X-Telegram-Bot-Api-Secret-Token` header; a request without it is refused
 * with 401 before its body is read. The answer is 200 only after the
 * inbox journaled the update; any other answer makes Telegram deliver it again later.
 */
import type { InboundEvent } from '../../core/provider/provider.js'
import { sameSecret } from '../shared/secret.js'
import { jsonOf, postTo } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { inboundOf, type TelegramUpdate } from './updates.js'

/** What the webhook route needs from its provider. */
export interface TelegramWebhookDeps {
  path: string
  secretToken: string
  sink: (event: InboundEvent, update: TelegramUpdate) => Promise<void>
}

/** The webhook route: a wrong path, method or secret token is refused before the body is read. */
export function telegramWebhook(deps: TelegramWebhookDeps): WebhookRoute {
  return {
    head: (head) =>
      postTo(head, deps.path) ??
      (sameSecret(head.headers['x-telegram-bot-api-secret-token'], deps.secretToken) ? undefined : { status: 401 }),
    handle: async (request) => {
      const update = jsonOf<TelegramUpdate>(request.body)
      if (typeof update?.update_id !== 'number') return { status: 400, body: 'not an update' }
      const event = inboundOf(update)
      // A rejected sink (the journal is down) throws: the server answers 500 and Telegram retries.
      if (event) await deps.sink(event, update)
      return { status: 200 }
    },
  }
}
