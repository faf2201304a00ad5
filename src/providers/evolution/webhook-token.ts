/**
 * The token Evolution API puts on its webhooks: with `jwt_key` in the webhook's `headers`, every
 * POST carries `Authorization: Bearer <JWT>` signed HS256 with that key, issued for ten minutes
 * (`iat`, `exp`, `app: 'evolution'`, `action: 'webhook'`). A request without a valid, unexpired
 * token is refused before its body is read, and so is a token issued for longer than
 * `EVOLUTION_LIMITS.webhookTokenLifetimeMaxMs` (10 minutes). The token does not cover the body, so
 * the webhook takes each token once (`evolution/webhook.ts`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { bearerOf } from '../shared/secret.js'
import { EVOLUTION_LIMITS } from './limits.js'

/** A valid webhook token: its signature (the replay cache's key) and when it expires (ms). */
export interface WebhookToken {
  signature: string
  expiresAt: number
}

/**
 * The token `authorization` carries when it is signed with `jwtKey`, valid at `now` (within
 * `skewMs`) and issued for at most `EVOLUTION_LIMITS.webhookTokenLifetimeMaxMs`; undefined otherwise.
 */
export function webhookTokenIn(
  authorization: string | string[] | undefined,
  jwtKey: string,
  now: number,
  skewMs: number,
): WebhookToken | undefined {
  const parts = bearerOf(authorization)?.split('.')
  if (!parts || parts.length !== 3) return undefined
  const [head, body, signature] = parts as [string, string, string]
  const expected = createHmac('sha256', jwtKey).update(`${head}.${body}`).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  const header = jsonOf(head) as { alg?: unknown } | undefined
  const claims = jsonOf(body) as { exp?: unknown; iat?: unknown; app?: unknown } | undefined
  if (header?.alg !== 'HS256' || !claims || claims.app !== 'evolution') return undefined
  const { exp, iat } = claims
  if (typeof exp !== 'number' || typeof iat !== 'number' || !Number.isFinite(exp) || !Number.isFinite(iat)) return undefined
  if ((exp - iat) * 1000 > EVOLUTION_LIMITS.webhookTokenLifetimeMaxMs) return undefined
  if (exp * 1000 < now - skewMs || iat * 1000 > now + skewMs) return undefined
  return { signature: expected.toString('base64url'), expiresAt: exp * 1000 + skewMs }
}

/** Whether `authorization` carries a token `webhookTokenIn` takes. */
export function validWebhookToken(authorization: string | string[] | undefined, jwtKey: string, now: number, skewMs: number): boolean {
  return webhookTokenIn(authorization, jwtKey, now, skewMs) !== undefined
}

/** A webhook token as Evolution API signs it (tests sign with it too). */
export function webhookTokenOf(jwtKey: string, now: number, lifetimeSeconds = 600): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const iat = Math.floor(now / 1000)
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ iat, exp: iat + lifetimeSeconds, app: 'evolution', action: 'webhook' })}`
  return `${unsigned}.${createHmac('sha256', jwtKey).update(unsigned).digest('base64url')}`
}

function jsonOf(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}
