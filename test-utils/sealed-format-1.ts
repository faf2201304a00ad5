/**
 * A value sealed as botmesh sealed it before format 2: `$sealed:1:`, its associated data the
 * record kind, key and field (`inbox\0<id>\0event`) or a store value's kind and chat, without the
 * scope or the chat id. Written here by hand, so the tests of the migration do not depend on code
 * that no longer writes it.
 */
import { createCipheriv, createHmac, randomBytes } from 'node:crypto'

export function sealedInFormat1(key: Buffer, keyId: string, plain: string, aad: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(aad, 'utf8'))
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  const check = createHmac('sha256', key).update('botmesh key check v1').digest('hex').slice(0, 8)
  return `$sealed:1:${keyId}:${check}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`
}
