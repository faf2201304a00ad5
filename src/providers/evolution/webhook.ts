/**
 * The Evolution API webhook: each POST must carry the HS256 token Evolution signs with the
 * webhook's `jwt_key` (401 otherwise, before the body is read); a `messages.upsert` of this
 * instance is answered 200 only after the inbox journaled it. Any other answer makes Evolution
 * retry the webhook with backoff; the message already journaled is then recognised by its key id.
 */
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { EVOLUTION_LIMITS } from './limits.js'
import { inboundOf, isMessagesUpsert, type EvolutionWebhook } from './messages.js'
import { validWebhookToken } from './webhook-token.js'

/** What the webhook handler needs from its provider. */
export interface EvolutionWebhookDeps {
  path: string
  jwtKey: string
  instance: string
  now: () => number
  sink: (event: InboundEvent) => Promise<void>
}

/** The answer from the request line and headers alone: a wrong path or method, or a token that is missing or not valid. */
export function evolutionWebhookHead(
  head: WebhookHead,
  deps: Pick<EvolutionWebhookDeps, 'path' | 'jwtKey' | 'now'>,
): WebhookResponse | undefined {
  const { pathname } = head.url
  if (pathname !== deps.path && !pathname.startsWith(`${deps.path.replace(/\/$/, '')}/`)) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  if (!validWebhookToken(head.headers.authorization, deps.jwtKey, deps.now(), EVOLUTION_LIMITS.webhookClockSkewMs))
    return { status: 401, body: 'invalid token' }
  return undefined
}

/** Handles one webhook request (at `path`, or `path/<event>` when the webhook is set `webhook_by_events`). */
export async function handleEvolutionWebhook(request: WebhookRequest, deps: EvolutionWebhookDeps): Promise<WebhookResponse> {
  const early = evolutionWebhookHead(request, deps)
  if (early) return early
  let payload: EvolutionWebhook
  try {
    payload = JSON.parse(request.body.toString('utf8')) as EvolutionWebhook
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  // One webhook URL may serve several instances; this provider handles its own.
  if (!isMessagesUpsert(payload?.event) || payload.instance !== deps.instance || !payload.data) return { status: 200 }
  const event = inboundOf(payload.data)
  // A rejected sink (the journal is down) throws: the server answers 500 and Evolution retries.
  if (event) await deps.sink(event)
  return { status: 200 }
}
