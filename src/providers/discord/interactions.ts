/**
 * The interactions endpoint, for a bot that takes button presses over HTTP instead of the gateway.
 * Discord signs each request with the application's Ed25519 key (`X-Signature-Ed25519` over
 * `X-Signature-Timestamp` + the raw body): without those headers a request is 401 before its body is
 * read; a bad signature is 401 once it is read, and journals nothing. A signed timestamp more than
 * 5 minutes from the clock, or a signature already taken, is 401 too (a replay). A ping is
 * answered with a pong; a button press is acknowledged (`DEFERRED_UPDATE_MESSAGE`) only after the
 * inbox journaled it. Without that answer within 3 seconds the user sees the press fail and may
 * press again (a new interaction).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import type { InboundEvent } from '../../core/provider/provider.js'
import { ProviderConfigError } from '../shared/errors.js'
import { isFresh, REPLAY_LIMITS, type ReplayCache } from '../shared/replay.js'
import type { WebhookHead, WebhookRequest, WebhookResponse } from '../shared/http-server.js'
import { jsonOf, postTo } from '../shared/webhook-checks.js'
import type { WebhookRoute } from '../shared/webhook-server.js'
import { INTERACTION_TYPES, interactionEventOf, type DiscordInteraction } from './events.js'
import { DISCORD_LIMITS } from './limits.js'

/** The DER prefix of an Ed25519 public key (SPKI), before its 32 raw bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/** The application's public key (64 hex characters, as the Developer Portal shows it). */
export function interactionsKey(publicKeyHex: string): KeyObject {
  if (!/^[0-9a-f]{64}$/i.test(publicKeyHex)) throw new ProviderConfigError('discord', 'interactions.publicKey must be 64 hex characters')
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyHex, 'hex')]), format: 'der', type: 'spki' })
}

/** Whether the request carries the application's signature of its timestamp and body. */
export function validInteractionSignature(request: WebhookRequest, key: KeyObject): boolean {
  const signature = request.headers['x-signature-ed25519']
  const timestamp = request.headers['x-signature-timestamp']
  if (typeof signature !== 'string' || typeof timestamp !== 'string' || !/^[0-9a-f]{128}$/i.test(signature)) return false
  return verify(null, Buffer.concat([Buffer.from(timestamp), request.body]), key, Buffer.from(signature, 'hex'))
}

/**
 * The answer from the request line and headers alone: a wrong path or method, or no signature and
 * timestamp headers (the signature covers the body, so it is checked once the body is read).
 */
function interactionsHead(head: WebhookHead, deps: { path: string }): WebhookResponse | undefined {
  const early = postTo(head, deps.path)
  if (early) return early
  const { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp } = head.headers
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return { status: 401, body: 'invalid request signature' }
  return undefined
}

/** What the interactions endpoint needs from its provider. */
export interface InteractionsDeps {
  path: string
  key: KeyObject
  /** The clock (ms since the epoch). */
  now: () => number
  /** The signatures already taken. */
  replays: ReplayCache
  sink: (event: InboundEvent) => Promise<void>
}

/**
 * Whether a validly signed request is fresh and new: its `X-Signature-Timestamp` (seconds) within
 * 5 minutes of `now`, and its signature not taken before (held until the timestamp is stale).
 */
export function freshInteraction(request: WebhookRequest, deps: Pick<InteractionsDeps, 'now' | 'replays'>): boolean {
  const timestamp = request.headers['x-signature-timestamp'] as string
  const signedAt = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) * 1000 : NaN
  const now = deps.now()
  if (!isFresh(signedAt, now)) return false
  const signature = (request.headers['x-signature-ed25519'] as string).toLowerCase()
  return deps.replays.firstSight(signature, signedAt + REPLAY_LIMITS.freshnessMs, now)
}

/** The interactions endpoint's route. */
export function interactionsRoute(deps: InteractionsDeps): WebhookRoute {
  return {
    bodyBytesMax: DISCORD_LIMITS.webhookBodyBytesMax,
    head: (head) => interactionsHead(head, deps),
    handle: async (request) => {
      if (!validInteractionSignature(request, deps.key)) return { status: 401, body: 'invalid request signature' }
      if (!freshInteraction(request, deps)) return { status: 401, body: 'stale or replayed request' }
      const interaction = jsonOf<DiscordInteraction>(request.body)
      if (interaction.type === INTERACTION_TYPES.ping) return json({ type: 1 })
      const event = interactionEventOf(interaction)
      // A rejected sink (the journal is down) throws: the server answers 500, and the press fails.
      if (event) await deps.sink(event)
      // 6: DEFERRED_UPDATE_MESSAGE, the press is taken and the message stays as it is.
      return json({ type: 6 })
    },
  }
}

const json = (body: object): WebhookResponse => ({ status: 200, body: JSON.stringify(body), contentType: 'application/json' })
