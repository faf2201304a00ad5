/**
 * The token Evolution API puts on its webhooks: with `jwt_key` in the webhook's `headers`, every
 * POST carries `Authorization: Bearer <JWT>` signed HS256 with that key, issued for ten minutes
 * (`iat`, `exp`, `app: 'evolution'`, `action: 'webhook'`). A request without a valid, unexpired
 * token is refused before its body is read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { bearerOf } from '../shared/secret.js'

/** Whether `authorization` carries a token signed with `jwtKey` that is valid at `now` (within `skewMs`). */
export function validWebhookToken(authorization: string | string[] | undefined, jwtKey: string, now: number, skewMs: number): boolean {
  const token = bearerOf(authorization)
  const parts = token?.split('.')
  if (!parts || parts.length !== 3) return false
  const [head, body, signature] = parts as [string, string, string]
  const expected = createHmac('sha256', jwtKey).update(`${head}.${body}`).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false
  const header = jsonOf(head) as { alg?: unknown } | undefined
  const claims = jsonOf(body) as { exp?: unknown; iat?: unknown; app?: unknown } | undefined
  if (header?.alg !== 'HS256' || !claims || claims.app !== 'evolution') return false
  const seconds = now / 1000
  if (typeof claims.exp !== 'number' || claims.exp < seconds - skewMs / 1000) return false
  return typeof claims.iat !== 'number' || claims.iat <= seconds + skewMs / 1000
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
