/**
 * The Evolution API webhook: each POST must carry the HS256 token Evolution signs with the
 * webhook's `jwt_key` (401 otherwise, before the body is read). The token does not cover the body,
 * so each is taken once: the same token again is 401 until it expires (a token whose request the
 * journal refused is forgotten, so Evolution's retry with it is taken). A `messages.upsert` of this
 * instance is answered 200 only after the inbox journaled it. Any other answer makes Evolution
 * retry the webhook with backoff; the message already journaled is then recognised by its key id.
 */
import type { InboundEvent } from '../../core/provider.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import type { ReplayCache } from '../shared/replay.js'
import { EVOLUTION_LIMITS } from './limits.js'
import { inboundOf, isMessagesUpsert, type EvolutionWebhook } from './messages.js'
import { webhookTokenIn } from './webhook-token.js'

/** What the webhook handler needs from its provider. */
export interface EvolutionWebhookDeps {
  path: string
  jwtKey: string
  instance: string
  now: () => number
  /** The tokens already taken. */
  replays: ReplayCache
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * The answer from the request line and headers alone: a wrong path or method, or a token that is
 * missing, not valid, or already taken (the server asks once per request; this takes the token).
 */
export function evolutionWebhookHead(
  head: WebhookHead,
  deps: Pick<EvolutionWebhookDeps, 'path' | 'jwtKey' | 'now' | 'replays'>,
): WebhookResponse | undefined {
  const early = pathAndMethod(head, deps.path)
  if (early) return early
  const now = deps.now()
  const token = webhookTokenIn(head.headers.authorization, deps.jwtKey, now, EVOLUTION_LIMITS.webhookClockSkewMs)
  if (!token) return { status: 401, body: 'invalid token' }
  if (!deps.replays.firstSight(token.signature, token.expiresAt, now)) return { status: 401, body: 'token already used' }
  return undefined
}

function pathAndMethod(head: WebhookHead, path: string): WebhookResponse | undefined {
  const { pathname } = head.url
  if (pathname !== path && !pathname.startsWith(`${path.replace(/\/$/, '')}/`)) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  return undefined
}

/**
 * Handles one webhook request (at `path`, or `path/<event>` when the webhook is set
 * `webhook_by_events`) that `evolutionWebhookHead` let through.
 */
export async function handleEvolutionWebhook(request: WebhookRequest, deps: EvolutionWebhookDeps): Promise<WebhookResponse> {
  const early = pathAndMethod(request, deps.path)
  if (early) return early
  const token = webhookTokenIn(request.headers.authorization, deps.jwtKey, deps.now(), EVOLUTION_LIMITS.webhookClockSkewMs)
  if (!token) return { status: 401, body: 'invalid token' }
  let payload: EvolutionWebhook
  try {
    payload = JSON.parse(request.body.toString('utf8')) as EvolutionWebhook
  } catch {
    return { status: 400, body: 'the body is not JSON' }
  }
  // One webhook URL may serve several instances; this provider handles its own.
  if (!isMessagesUpsert(payload?.event) || payload.instance !== deps.instance || !payload.data) return { status: 200 }
  const event = inboundOf(payload.data)
  // A rejected sink (the journal is down) throws: the server answers 500 and Evolution retries,
  // with this token or a new one.
  if (event)
    await deps.sink(event).catch((error: unknown) => {
      deps.replays.forget(token.signature)
      throw error
    })
  return { status: 200 }
}
