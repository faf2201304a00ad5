/**
 * The Evolution API webhook: each POST must carry the HS256 token Evolution signs with the
 * webhook's `jwt_key` (401 otherwise, before the body is read). The token does not cover the body,
 * so each is taken once: the same token again is 401 until it expires (a token whose request the
 * journal refused is forgotten, so Evolution's retry with it is taken). A `messages.upsert` of this
 * instance is answered 200 only after the inbox journaled it. Any other answer makes Evolution
 * retry the webhook with backoff; the message already journaled is then recognised by its key id.
 */
import type { InboundEvent } from '../../core/provider/provider.js'
import type { WebhookHead, WebhookResponse } from '../shared/http-server.js'
import type { ReplayCache } from '../shared/replay.js'
import { jsonOf } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { EVOLUTION_LIMITS } from './limits.js'
import { inboundOf, isMessagesUpsert, type EvolutionWebhook } from './messages.js'
import { webhookTokenIn } from './webhook-token.js'

/** What the webhook route needs from its provider. */
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
 * The webhook route, at `path` or `path/<event>` (a webhook set `webhook_by_events`). Its head
 * refuses a wrong path or method, or a token that is missing, not valid, or already taken (the
 * server asks once per request, so the head takes the token).
 */
export function evolutionWebhook(deps: EvolutionWebhookDeps): WebhookRoute {
  return {
    bodyBytesMax: EVOLUTION_LIMITS.webhookBodyBytesMax,
    head: (head) => evolutionHead(head, deps),
    handle: async (request) => {
      const token = webhookTokenIn(request.headers.authorization, deps.jwtKey, deps.now(), EVOLUTION_LIMITS.webhookClockSkewMs)
      if (!token) return { status: 401, body: 'invalid token' }
      const payload = jsonOf<EvolutionWebhook>(request.body)
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
    },
  }
}

function evolutionHead(head: WebhookHead, deps: EvolutionWebhookDeps): WebhookResponse | undefined {
  const { pathname } = head.url
  if (pathname !== deps.path && !pathname.startsWith(`${deps.path.replace(/\/$/, '')}/`)) return { status: 404 }
  if (head.method !== 'POST') return { status: 405 }
  const now = deps.now()
  const token = webhookTokenIn(head.headers.authorization, deps.jwtKey, now, EVOLUTION_LIMITS.webhookClockSkewMs)
  if (!token) return { status: 401, body: 'invalid token' }
  if (!deps.replays.firstSight(token.signature, token.expiresAt, now)) return { status: 401, body: 'token already used' }
  return undefined
}
